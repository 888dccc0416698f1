// Copyright 2026 The Tessera Authors.

#include "bench/shootout/report.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/json.h"

namespace tessera {
namespace shootout {
namespace {

constexpr const char* kTimeMetric = "ns_per_op";

// "12.3 ns", "4.56 us", "7.89 ms".
std::string FormatNs(double ns) {
  if (ns >= 1e6) return absl::StrFormat("%.2f ms", ns / 1e6);
  if (ns >= 1e3) return absl::StrFormat("%.2f us", ns / 1e3);
  return absl::StrFormat("%.1f ns", ns);
}

double Ratio(double value, double baseline) {
  return baseline > 0 ? value / baseline : NAN;
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

const char* BarColor(const std::string& subject) {
  if (subject == std::string(kBaseline)) return "#888888";
  const SubjectInfo* info = FindSubject(subject);
  return info != nullptr && info->is_peer ? "#4e79a7" : "#f28e2b";
}

// Horizontal bars of `metric`'s median per subject with min-max whiskers.
std::string BarChartSvg(const RunResults& r, const std::string& workload,
                        const std::string& metric, const std::string& title,
                        const std::string& unit) {
  struct Row {
    std::string subject;
    Summary s;
  };
  std::vector<Row> rows;
  double top = 0;
  for (const std::string& subject : r.subjects) {
    const Cell* cell = r.Find(workload, subject);
    if (cell == nullptr || !cell->ok()) continue;
    rows.push_back({subject, cell->Figure(metric)});
    top = std::max(top, rows.back().s.max);
  }
  const int kLeft = 110, kWidth = 460, kRow = 22, kTop = 40;
  const int height = kTop + kRow * static_cast<int>(rows.size()) + 30;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>\n"
      "<text x=\"10\" y=\"34\" fill=\"#555\">median of rounds, whiskers min-max;"
      " %s, lower is better; grey = glibc, blue = peers, orange = Tessera"
      "</text>\n",
      kLeft + kWidth + 150, height, XmlEscape(title), XmlEscape(unit));
  if (top <= 0) top = 1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int y = kTop + kRow * static_cast<int>(i);
    const Summary& s = rows[i].s;
    const double w = kWidth * s.median / top;
    const double x0 = kLeft + kWidth * s.min / top;
    const double x1 = kLeft + kWidth * s.max / top;
    absl::StrAppendFormat(
        &svg,
        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n"
        "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n"
        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n"
        "<text x=\"%.1f\" y=\"%d\">%s%s</text>\n",
        kLeft - 6, y + 15, XmlEscape(rows[i].subject), kLeft, y + 4, w,
        kRow - 8, BarColor(rows[i].subject), x0, y + 10, x1, y + 10, x1 + 6,
        y + 15, unit == "ns/op" ? FormatNs(s.median) : absl::StrFormat(
                                                           "%.3g", s.median),
        s.noisy() ? " !" : "");
  }
  svg += "</svg>\n";
  return svg;
}

// W4's latency percentiles per subject, log scale, grouped bars.
std::string LatencySvg(const RunResults& r) {
  const std::vector<std::pair<std::string, const char*>> kPercentiles = {
      {"p50_ns", "#59a14f"}, {"p99_ns", "#edc948"}, {"p999_ns", "#e15759"},
      {"max_ns", "#76b7b2"}};
  std::vector<std::pair<std::string, const Cell*>> rows;
  double top = 10;
  for (const std::string& subject : r.subjects) {
    const Cell* cell = r.Find("w4", subject);
    if (cell == nullptr || !cell->ok()) continue;
    rows.push_back({subject, cell});
    top = std::max(top, cell->Figure("max_ns").median);
  }
  const double log_top = std::log10(top);
  const int kLeft = 110, kWidth = 460, kBar = 9, kTop = 50;
  const int group = kBar * 4 + 10;
  const int height = kTop + group * static_cast<int>(rows.size()) + 30;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">W4 "
      "latency per free+allocate (log scale, ns, median of rounds)</text>\n",
      kLeft + kWidth + 120, height);
  for (size_t k = 0; k < kPercentiles.size(); ++k) {
    absl::StrAppendFormat(&svg,
                          "<rect x=\"%d\" y=\"30\" width=\"10\" height=\"10\" "
                          "fill=\"%s\"/><text x=\"%d\" y=\"39\">%s</text>\n",
                          10 + 90 * static_cast<int>(k), kPercentiles[k].second,
                          24 + 90 * static_cast<int>(k),
                          std::string(kPercentiles[k].first, 0,
                                      kPercentiles[k].first.size() - 3));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const int y = kTop + group * static_cast<int>(i);
    absl::StrAppendFormat(&svg,
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s"
                          "</text>\n",
                          kLeft - 6, y + 2 * kBar + 4, XmlEscape(rows[i].first));
    for (size_t k = 0; k < kPercentiles.size(); ++k) {
      const double v = rows[i].second->Figure(kPercentiles[k].first).median;
      const double w = kWidth * std::log10(std::max(v, 1.0)) / log_top;
      const int by = y + kBar * static_cast<int>(k);
      absl::StrAppendFormat(&svg,
                            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
                            "height=\"%d\" fill=\"%s\"/>\n"
                            "<text x=\"%.1f\" y=\"%d\" font-size=\"9\">%s"
                            "</text>\n",
                            kLeft, by, w, kBar - 1, kPercentiles[k].second,
                            kLeft + w + 4, by + kBar - 1, FormatNs(v));
    }
  }
  svg += "</svg>\n";
  return svg;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

}  // namespace

Summary Summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.median = n % 2 == 1 ? values[n / 2]
                        : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  s.min = values.front();
  s.max = values.back();
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  return s;
}

Summary Cell::Figure(const std::string& metric) const {
  std::vector<double> values;
  for (const Metrics& m : rounds) {
    for (const auto& [name, value] : m) {
      if (name == metric) values.push_back(value);
    }
  }
  return Summarize(std::move(values));
}

const Cell* RunResults::Find(const std::string& workload,
                             const std::string& subject) const {
  auto it = cells.find({workload, subject});
  return it == cells.end() ? nullptr : &it->second;
}

std::string TerminalTable(const RunResults& r) {
  std::string out = absl::StrFormat("%-12s %12s", "workload", "glibc ns/op");
  for (const std::string& s : r.subjects) {
    if (s != std::string(kBaseline)) absl::StrAppendFormat(&out, " %12s", s);
  }
  out += "\n";
  for (const std::string& w : r.workloads) {
    const Cell* base = r.Find(w, std::string(kBaseline));
    const Summary b =
        base != nullptr && base->ok() ? base->Figure(kTimeMetric) : Summary();
    absl::StrAppendFormat(&out, "%-12s %12s", w,
                          base == nullptr || !base->ok()
                              ? std::string("FAILED")
                              : FormatNs(b.median) + (b.noisy() ? "!" : " "));
    for (const std::string& s : r.subjects) {
      if (s == std::string(kBaseline)) continue;
      const Cell* cell = r.Find(w, s);
      std::string text = "n/a";
      if (r.missing.count(s)) {
        text = "missing";
      } else if (cell != nullptr && !cell->ok()) {
        text = "FAILED";
      } else if (cell != nullptr) {
        const Summary f = cell->Figure(kTimeMetric);
        text = absl::StrFormat("%.2fx%s", Ratio(f.median, b.median),
                               f.noisy() ? "!" : " ");
      }
      absl::StrAppendFormat(&out, " %12s", text);
    }
    out += "\n";
  }
  out += absl::StrFormat(
      "Columns after glibc: median time as a ratio to glibc's (below 1.00x "
      "is faster). '!' = spread (max-min)/median above %.0f%% over %d "
      "rounds.\n",
      kNoisySpread * 100, r.rounds);
  return out;
}

std::vector<std::string> Recommendations(const RunResults& r) {
  std::vector<std::string> lines;
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    const Cell* base = r.Find(w, std::string(kBaseline));
    std::vector<std::pair<Summary, std::string>> ranked;
    for (const std::string& s : r.subjects) {
      const Cell* cell = r.Find(w, s);
      if (cell != nullptr && cell->ok()) {
        ranked.push_back({cell->Figure(kTimeMetric), s});
      }
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first.median < b.first.median;
    });
    std::string title = info != nullptr ? info->title : w;
    if (ranked.empty() || base == nullptr || !base->ok()) {
      lines.push_back(absl::StrCat("**", title,
                                   "**: no result (glibc baseline or every "
                                   "allocator failed)."));
      continue;
    }
    const Summary b = base->Figure(kTimeMetric);
    const auto& [win, winner] = ranked.front();
    std::string line = absl::StrFormat("**%s**: use **%s** (%s", title, winner,
                                       FormatNs(win.median));
    if (winner == std::string(kBaseline)) {
      line += ", glibc itself is fastest)";
    } else {
      line += absl::StrFormat(", %.2fx faster than glibc's %s)",
                              b.median / win.median, FormatNs(b.median));
    }
    if (ranked.size() > 1) {
      const auto& [second, runner] = ranked[1];
      if (second.min <= win.max) {
        line += absl::StrFormat(
            "; %s (%s) is within the spread, call it a tie", runner,
            FormatNs(second.median));
      } else {
        line += absl::StrFormat("; runner-up %s at %s", runner,
                                FormatNs(second.median));
      }
    }
    if (win.noisy()) line += " ! noisy";
    if (w == "w4" || w == "trace") {
      std::pair<double, std::string> lean{1e300, ""};
      for (const auto& [s, name] : ranked) {
        const double rss = r.Find(w, name)->Figure("rss_over_live").median;
        if (rss < lean.first) lean = {rss, name};
      }
      line += absl::StrFormat(
          ". Least memory: **%s** (peak RSS growth %.2fx the live bytes; "
          "glibc %.2fx)",
          lean.second, lean.first, base->Figure("rss_over_live").median);
    }
    lines.push_back(line + ".");
  }
  return lines;
}

std::string ResultsJson(const RunResults& r) {
  std::string out = "{\n";
  absl::StrAppend(&out, "  \"format\": \"tessera-shootout-1\",\n",
                  "  \"started_utc\": ", JsonQuote(r.started_utc), ",\n",
                  "  \"rounds\": ", r.rounds, ",\n", "  \"quick\": ",
                  r.quick ? "true" : "false", ",\n", "  \"seconds\": ",
                  JsonNumber(r.seconds), ",\n", "  \"baseline\": ",
                  JsonQuote(kBaseline), ",\n");
  std::vector<std::string> parts;
  for (const auto& [peer, proof] : r.proofs) {
    parts.push_back(absl::StrCat(JsonQuote(peer), ": ", JsonQuote(proof)));
  }
  absl::StrAppend(&out, "  \"peer_proofs\": {", absl::StrJoin(parts, ", "),
                  "},\n");
  parts.clear();
  for (const auto& [peer, message] : r.missing) {
    parts.push_back(absl::StrCat(JsonQuote(peer), ": ", JsonQuote(message)));
  }
  absl::StrAppend(&out, "  \"missing_peers\": {", absl::StrJoin(parts, ", "),
                  "},\n  \"workloads\": [\n");
  for (size_t wi = 0; wi < r.workloads.size(); ++wi) {
    const std::string& w = r.workloads[wi];
    const Cell* base = r.Find(w, std::string(kBaseline));
    absl::StrAppend(&out, "    {\"name\": ", JsonQuote(w),
                    ", \"unit\": \"ns_per_op\", \"results\": [\n");
    std::vector<std::string> results;
    for (const std::string& s : r.subjects) {
      const Cell* cell = r.Find(w, s);
      if (cell == nullptr) continue;
      std::string entry = absl::StrCat("      {\"subject\": ", JsonQuote(s),
                                       ", \"ok\": ", cell->ok() ? "true" : "false");
      if (!cell->error.empty()) {
        absl::StrAppend(&entry, ", \"error\": ", JsonQuote(cell->error));
      }
      absl::StrAppend(&entry, ", \"figures\": {");
      std::vector<std::string> figures;
      if (!cell->rounds.empty()) {
        for (const auto& [metric, unused] : cell->rounds.front()) {
          const Summary f = cell->Figure(metric);
          std::vector<std::string> values;
          for (const Metrics& m : cell->rounds) {
            for (const auto& [name, v] : m) {
              if (name == metric) values.push_back(JsonNumber(v));
            }
          }
          double ratio = NAN;
          if (base != nullptr && base->ok()) {
            ratio = Ratio(f.median, base->Figure(metric).median);
          }
          figures.push_back(absl::StrCat(
              JsonQuote(metric), ": {\"median\": ", JsonNumber(f.median),
              ", \"min\": ", JsonNumber(f.min), ", \"max\": ",
              JsonNumber(f.max), ", \"spread\": ", JsonNumber(f.spread),
              ", \"noisy\": ", f.noisy() ? "true" : "false",
              ", \"ratio_to_glibc\": ", JsonNumber(ratio), ", \"rounds\": [",
              absl::StrJoin(values, ", "), "]}"));
        }
      }
      absl::StrAppend(&entry, absl::StrJoin(figures, ", "), "}}");
      results.push_back(entry);
    }
    absl::StrAppend(&out, absl::StrJoin(results, ",\n"), "\n    ]}",
                    wi + 1 < r.workloads.size() ? ",\n" : "\n");
  }
  out += "  ]\n}\n";
  return out;
}

std::string MarkdownReport(const RunResults& r) {
  std::string md = "# Tessera allocator shootout\n\n";
  absl::StrAppendFormat(
      &md,
      "Run started %s UTC, %d rounds%s, %.0f s. Every measurement ran in a "
      "fresh child process (peers with LD_PRELOAD, proven at start-up); "
      "rounds were interleaved across allocators; a validation pass (every "
      "block written and checked, no overlaps) preceded each timed run.\n\n",
      r.started_utc, r.rounds, r.quick ? " (--quick)" : "", r.seconds);
  md += "## Recommendation\n\n";
  for (const std::string& line : Recommendations(r)) {
    absl::StrAppend(&md, "- ", line, "\n");
  }
  md += "\n## Headline\n\n```\n" + TerminalTable(r) + "```\n\n";
  md += "## Workloads\n\n";
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    const Cell* base = r.Find(w, std::string(kBaseline));
    const Summary b =
        base != nullptr && base->ok() ? base->Figure(kTimeMetric) : Summary();
    absl::StrAppendFormat(&md, "### %s (`%s`)\n\n%s.\n\n![%s](%s.svg)\n\n",
                          info->title, w, info->description, w, w);
    md += "| allocator | median | min | max | spread | vs glibc |\n"
          "|---|---:|---:|---:|---:|---:|\n";
    for (const std::string& s : r.subjects) {
      const Cell* cell = r.Find(w, s);
      if (cell == nullptr) continue;
      if (!cell->ok()) {
        absl::StrAppendFormat(&md, "| %s | failed: %s | | | | |\n", s,
                              cell->error);
        continue;
      }
      const Summary f = cell->Figure(kTimeMetric);
      absl::StrAppendFormat(&md, "| %s | %s | %s | %s | %.1f%%%s | %.2fx |\n",
                            s, FormatNs(f.median), FormatNs(f.min),
                            FormatNs(f.max), f.spread * 100,
                            f.noisy() ? " !" : "", Ratio(f.median, b.median));
    }
    md += "\n";
    if (w == "w4") {
      md += "Latency of one free + allocate and memory (medians):\n\n"
            "| allocator | p50 | p99 | p99.9 | max | peak RSS growth / "
            "peak live |\n|---|---:|---:|---:|---:|---:|\n";
      for (const std::string& s : r.subjects) {
        const Cell* cell = r.Find(w, s);
        if (cell == nullptr || !cell->ok()) continue;
        absl::StrAppendFormat(
            &md, "| %s | %s | %s | %s | %s | %.2f |\n", s,
            FormatNs(cell->Figure("p50_ns").median),
            FormatNs(cell->Figure("p99_ns").median),
            FormatNs(cell->Figure("p999_ns").median),
            FormatNs(cell->Figure("max_ns").median),
            cell->Figure("rss_over_live").median);
      }
      md += "\n![W4 latency](w4_latency.svg)\n\n![W4 memory](w4_rss.svg)\n\n";
    }
    if (w == "trace") {
      md += "Replayed calls and memory (medians):\n\n"
            "| allocator | allocations | reallocs | frees | peak live | "
            "peak RSS growth / peak live |\n|---|---:|---:|---:|---:|---:|\n";
      for (const std::string& s : r.subjects) {
        const Cell* cell = r.Find(w, s);
        if (cell == nullptr || !cell->ok()) continue;
        absl::StrAppendFormat(
            &md, "| %s | %.0f | %.0f | %.0f | %.0f B | %.2f |\n", s,
            cell->Figure("allocations").median,
            cell->Figure("reallocs").median, cell->Figure("frees").median,
            cell->Figure("peak_live_bytes").median,
            cell->Figure("rss_over_live").median);
      }
      md += "\n![trace memory](trace_rss.svg)\n\n";
    }
  }
  md += "## Allocators\n\n";
  for (const std::string& s : r.subjects) {
    const SubjectInfo* info = FindSubject(s);
    absl::StrAppend(&md, "- `", s, "`: ", info->description);
    auto proof = r.proofs.find(s);
    if (proof != r.proofs.end()) absl::StrAppend(&md, ". Proof: ", proof->second);
    md += "\n";
  }
  for (const auto& [peer, message] : r.missing) {
    absl::StrAppend(&md, "- `", peer, "`: **missing**: ", message, "\n");
  }
  md += "\nAll figures of every round: [results.json](results.json).\n";
  return md;
}

absl::Status WriteReport(const RunResults& r, const std::string& dir) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", dir, ": ", std::strerror(errno)));
  }
  std::vector<std::pair<std::string, std::string>> files = {
      {"report.md", MarkdownReport(r)}, {"results.json", ResultsJson(r)}};
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    files.push_back({w + ".svg", BarChartSvg(r, w, kTimeMetric, info->title,
                                             "ns/op")});
    if (w == "trace") {
      files.push_back({"trace_rss.svg",
                       BarChartSvg(r, w, "rss_over_live",
                                   "Trace replay: peak RSS growth / peak live "
                                   "bytes",
                                   "ratio")});
    }
    if (w == "w4") {
      files.push_back({"w4_latency.svg", LatencySvg(r)});
      files.push_back({"w4_rss.svg",
                       BarChartSvg(r, w, "rss_over_live",
                                   "W4 peak RSS growth / peak live bytes",
                                   "ratio")});
    }
  }
  for (const auto& [name, text] : files) {
    absl::Status status = WriteFile(dir + "/" + name, text);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace shootout
}  // namespace tessera
