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
  if (subject == std::string(kNumpy)) return "#59a14f";
  const SubjectInfo* info = FindSubject(subject);
  return info != nullptr && info->is_peer && !info->tessera ? "#4e79a7"
                                                              : "#f28e2b";
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
      " %s, lower is better; %s"
      "</text>\n",
      kLeft + kWidth + 150, height, XmlEscape(title), XmlEscape(unit),
      IsTensorWorkload(workload)
          ? "green = NumPy, orange = Tessera tensors (storage from that "
            "allocator)"
          : "grey = glibc, blue = peers, orange = Tessera");
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

// Every tensor workload: NumPy time / Tessera time per allocator, log
// scale centred on 1 (right of the line: Tessera faster).
std::string TensorSvg(const RunResults& r) {
  std::vector<std::string> tensor_workloads, subjects;
  for (const std::string& w : r.workloads) {
    if (IsTensorWorkload(w)) tensor_workloads.push_back(w);
  }
  for (const std::string& s : r.subjects) {
    if (s == std::string(kNumpy)) continue;
    for (const std::string& w : tensor_workloads) {
      if (r.Find(w, s) != nullptr) {
        subjects.push_back(s);
        break;
      }
    }
  }
  const char* kColors[] = {"#f28e2b", "#4e79a7", "#e15759", "#76b7b2",
                           "#edc948", "#b07aa1"};
  const int kLeft = 150, kHalf = 230, kBar = 8, kTop = 56;
  const int group = kBar * static_cast<int>(subjects.size()) + 8;
  const int height =
      kTop + group * static_cast<int>(tensor_workloads.size()) + 30;
  const double kDecades = 1.5;  // each side: 10^1.5 = 31.6x
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Tessera "
      "tensors vs NumPy: NumPy time / Tessera time (log scale; right of the "
      "line = Tessera faster)</text>\n",
      kLeft + 2 * kHalf + 80, height);
  for (size_t k = 0; k < subjects.size(); ++k) {
    absl::StrAppendFormat(&svg,
                          "<rect x=\"%d\" y=\"32\" width=\"10\" "
                          "height=\"10\" fill=\"%s\"/><text x=\"%d\" "
                          "y=\"41\">%s</text>\n",
                          10 + 110 * static_cast<int>(k), kColors[k % 6],
                          24 + 110 * static_cast<int>(k),
                          XmlEscape(subjects[k]));
  }
  const int axis = kLeft + kHalf;
  absl::StrAppendFormat(&svg,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                        "stroke=\"black\"/>\n",
                        axis, kTop - 6, axis, height - 24);
  for (const double mark : {0.1, 1.0, 10.0}) {
    const double x = axis + kHalf * std::log10(mark) / kDecades;
    absl::StrAppendFormat(&svg,
                          "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" "
                          "fill=\"#555\">%gx</text>\n",
                          x, height - 10, mark);
  }
  for (size_t i = 0; i < tensor_workloads.size(); ++i) {
    const std::string& w = tensor_workloads[i];
    const int y = kTop + group * static_cast<int>(i);
    const Cell* base = r.Find(w, std::string(kNumpy));
    const double numpy =
        base != nullptr && base->ok() ? base->Figure(kTimeMetric).median : 0;
    absl::StrAppendFormat(&svg,
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s"
                          "</text>\n",
                          kLeft - 6, y + group / 2, XmlEscape(w.substr(7)));
    for (size_t k = 0; k < subjects.size(); ++k) {
      const Cell* cell = r.Find(w, subjects[k]);
      if (cell == nullptr || !cell->ok() || numpy <= 0) continue;
      const double ratio = numpy / cell->Figure(kTimeMetric).median;
      double dx = kHalf * std::log10(ratio) / kDecades;
      dx = std::max<double>(-kHalf, std::min<double>(kHalf, dx));
      const int by = y + kBar * static_cast<int>(k);
      absl::StrAppendFormat(
          &svg,
          "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
          "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"%d\" font-size=\"8\">"
          "%.2fx</text>\n",
          dx >= 0 ? axis : axis + dx, by, std::fabs(dx), kBar - 1,
          kColors[k % 6], dx >= 0 ? axis + dx + 3 : axis + dx - 30,
          by + kBar - 1, ratio);
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

namespace {

// One table of TerminalTable: `workloads` against `baseline`.
std::string Table(const RunResults& r,
                  const std::vector<std::string>& workloads,
                  const std::string& baseline, const std::string& first) {
  // Columns: every subject with a cell in these workloads, or missing.
  std::vector<std::string> columns;
  for (const std::string& s : r.subjects) {
    if (s == baseline) continue;
    for (const std::string& w : workloads) {
      if (r.Find(w, s) != nullptr) {
        columns.push_back(s);
        break;
      }
    }
  }
  const bool base_missing = r.missing.count(baseline) != 0;
  std::string out = absl::StrFormat("%-17s %12s", first,
                                    absl::StrCat(baseline, " ns/op"));
  for (const std::string& s : columns) absl::StrAppendFormat(&out, " %12s", s);
  out += "\n";
  for (const std::string& w : workloads) {
    const Cell* base = r.Find(w, baseline);
    const bool base_ok = base != nullptr && base->ok();
    const Summary b = base_ok ? base->Figure(kTimeMetric) : Summary();
    absl::StrAppendFormat(
        &out, "%-17s %12s", w,
        base_missing ? std::string("skipped")
        : !base_ok   ? std::string("FAILED")
                     : FormatNs(b.median) + (b.noisy() ? "!" : " "));
    for (const std::string& s : columns) {
      const Cell* cell = r.Find(w, s);
      std::string text = "n/a";
      if (cell != nullptr && !cell->ok()) {
        text = "FAILED";
      } else if (cell != nullptr) {
        const Summary f = cell->Figure(kTimeMetric);
        text = base_ok ? absl::StrFormat("%.2fx%s", Ratio(f.median, b.median),
                                         f.noisy() ? "!" : " ")
                       : FormatNs(f.median) + (f.noisy() ? "!" : " ");
      }
      absl::StrAppendFormat(&out, " %12s", text);
    }
    out += "\n";
  }
  out += absl::StrFormat(
      "Columns after %s: median time as a ratio to %s's (below 1.00x is "
      "faster)%s. '!' = spread (max-min)/median above %.0f%% over %d "
      "rounds.\n",
      baseline, baseline,
      base_missing ? "; with the baseline skipped, median times instead" : "",
      kNoisySpread * 100, r.rounds);
  return out;
}

}  // namespace

std::string TerminalTable(const RunResults& r) {
  std::vector<std::string> allocator_workloads, tensor_workloads;
  for (const std::string& w : r.workloads) {
    (IsTensorWorkload(w) ? tensor_workloads : allocator_workloads).push_back(w);
  }
  std::string out;
  if (!allocator_workloads.empty()) {
    out += Table(r, allocator_workloads, std::string(kBaseline), "workload");
  }
  if (!tensor_workloads.empty()) {
    if (!out.empty()) out += "\n";
    out += Table(r, tensor_workloads, std::string(kNumpy),
                 "tensor (float32)");
    out += "Tensor columns: Tessera's tensor engine with its storage from "
           "that allocator (malloc = the default allocator).\n";
    auto missing = r.missing.find(std::string(kNumpy));
    if (missing != r.missing.end()) out += missing->second + "\n";
  }
  return out;
}

std::vector<std::string> Recommendations(const RunResults& r) {
  std::vector<std::string> lines;
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    const std::string baseline(BaselineFor(w));
    const Cell* base = r.Find(w, baseline);
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
      auto missing = r.missing.find(baseline);
      lines.push_back(absl::StrCat(
          "**", title, "**: no ranking (",
          missing != r.missing.end()
              ? missing->second
              : absl::StrCat(baseline, " baseline or every allocator failed"),
          ")."));
      continue;
    }
    const Summary b = base->Figure(kTimeMetric);
    const auto& [win, winner] = ranked.front();
    std::string line = absl::StrFormat("**%s**: use **%s** (%s", title, winner,
                                       FormatNs(win.median));
    if (winner == baseline) {
      line += absl::StrCat(", ", baseline, " itself is fastest)");
    } else {
      line += absl::StrFormat(", %.2fx faster than %s's %s)",
                              b.median / win.median, baseline,
                              FormatNs(b.median));
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
    if (IsTensorWorkload(w) && winner != baseline) {
      line += " (Tessera's tensor engine with that allocator)";
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
    const std::string baseline(BaselineFor(w));
    const Cell* base = r.Find(w, baseline);
    absl::StrAppend(&out, "    {\"name\": ", JsonQuote(w),
                    ", \"unit\": \"ns_per_op\", \"baseline\": ",
                    JsonQuote(baseline));
    auto skipped = r.missing.find(baseline);
    if (skipped != r.missing.end()) {
      absl::StrAppend(&out, ", \"baseline_skipped\": ",
                      JsonQuote(skipped->second));
    }
    absl::StrAppend(&out, ", \"results\": [\n");
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
              ", \"ratio_to_", baseline, "\": ", JsonNumber(ratio),
              ", \"rounds\": [",
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
      "rounds were interleaved across allocators, and each round's children "
      "ran in another process layout (their argv[0] padded by a length that "
      "changes every round: a fixed layout favoured some allocators by over "
      "2x); a validation pass (every block written and checked, no overlaps) "
      "preceded each timed run.\n\n",
      r.started_utc, r.rounds, r.quick ? " (--quick)" : "", r.seconds);
  md += "## Recommendation\n\n";
  for (const std::string& line : Recommendations(r)) {
    absl::StrAppend(&md, "- ", line, "\n");
  }
  md += "\n## Headline\n\n```\n" + TerminalTable(r) + "```\n\n";
  md += "## Workloads\n\n";
  std::string first_tensor;
  for (const std::string& w : r.workloads) {
    if (IsTensorWorkload(w)) {
      first_tensor = w;
      break;
    }
  }
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    const std::string baseline(BaselineFor(w));
    const Cell* base = r.Find(w, baseline);
    const bool base_ok = base != nullptr && base->ok();
    const Summary b = base_ok ? base->Figure(kTimeMetric) : Summary();
    if (IsTensorWorkload(w) && w == first_tensor) {
      md += "### Tensor engine vs NumPy\n\n"
            "Tessera's tensor engine (public API: `arange`, `zeros`, `add`, "
            "`sum`), each tensor's storage from the allocator named, against "
            "NumPy in its own Python process; float32, the same number of "
            "calls on both sides, process CPU time per call (Tessera's "
            "includes its thread pool's workers, NumPy's includes the Python "
            "call overhead a NumPy user pays). Both sides check "
            "every element of one full-size result before timing.\n\n"
            "![Tessera tensors vs NumPy](tensor_vs_numpy.svg)\n\n";
      auto missing = r.missing.find(baseline);
      if (missing != r.missing.end()) {
        absl::StrAppend(&md, "**", missing->second, "**\n\n");
      }
    }
    absl::StrAppendFormat(&md, "### %s (`%s`)\n\n%s.\n\n![%s](%s.svg)\n\n",
                          info->title, w, info->description, w, w);
    absl::StrAppend(&md, "| allocator | median | min | max | spread | vs ",
                    baseline, " |\n|---|---:|---:|---:|---:|---:|\n");
    for (const std::string& s : r.subjects) {
      const Cell* cell = r.Find(w, s);
      if (cell == nullptr) continue;
      if (!cell->ok()) {
        absl::StrAppendFormat(&md, "| %s | failed: %s | | | | |\n", s,
                              cell->error);
        continue;
      }
      const Summary f = cell->Figure(kTimeMetric);
      absl::StrAppendFormat(
          &md, "| %s | %s | %s | %s | %.1f%%%s | %s |\n", s,
          FormatNs(f.median), FormatNs(f.min), FormatNs(f.max),
          f.spread * 100, f.noisy() ? " !" : "",
          base_ok ? absl::StrFormat("%.2fx", Ratio(f.median, b.median))
                  : std::string("skipped"));
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
      const Cell* tlsf = r.Find(w, "tlsf");
      if (!r.arena_map.empty() && tlsf != nullptr && tlsf->ok()) {
        absl::StrAppendFormat(
            &md,
            "The TLSF arena at the end of W4 (last round, before the "
            "teardown): %.0f free blocks; free space between live blocks is "
            "%.1f%% of the used span, its largest piece %.0f bytes "
            "(1 - largest/holes = %.3f); %.0f bytes of metadata nodes. "
            "Blue = live, pale green = free, dark = metadata:\n\n"
            "![TLSF arena map](%s)\n\n",
            tlsf->Figure("arena_free_blocks").median,
            100 * tlsf->Figure("arena_hole_share").median,
            tlsf->Figure("arena_largest_hole_bytes").median,
            tlsf->Figure("arena_hole_fragmentation").median,
            tlsf->Figure("arena_metadata_bytes").median, r.arena_map);
      }
    }
    if (w == "two_thread") {
      md += "Throughput of the two threads over the same churn on one thread "
            "(run first in the same child; 2.00 = perfect scaling, medians; "
            "on a 2-core machine shared with other work it also measures "
            "the neighbours):\n\n"
            "| allocator | one thread, ns per op | two threads, ns per op "
            "per thread | speedup |\n|---|---:|---:|---:|\n";
      for (const std::string& s : r.subjects) {
        const Cell* cell = r.Find(w, s);
        if (cell == nullptr || !cell->ok()) continue;
        absl::StrAppendFormat(
            &md, "| %s | %s | %s | %.2f |\n", s,
            FormatNs(cell->Figure("one_thread_ns_per_op").median),
            FormatNs(cell->Figure(kTimeMetric).median),
            cell->Figure("speedup_vs_one_thread").median);
      }
      md += "\n";
    }
    if (w == "trace") {
      md += "Replayed calls and memory (medians). Peak RSS growth is the "
            "child's peak RSS during the timed replay minus its RSS before "
            "the validation pass (which replays the trace once first), so "
            "it includes what the allocator kept from that pass; divided by "
            "the peak of live requested bytes it is the allocator's "
            "overhead and fragmentation (1.00 = none):\n\n"
            "| allocator | allocations | reallocs | frees | peak live | "
            "peak RSS growth | peak RSS growth / peak live |\n"
            "|---|---:|---:|---:|---:|---:|---:|\n";
      for (const std::string& s : r.subjects) {
        const Cell* cell = r.Find(w, s);
        if (cell == nullptr || !cell->ok()) continue;
        absl::StrAppendFormat(
            &md, "| %s | %.0f | %.0f | %.0f | %.1f MiB | %.1f MiB | %.2f |\n",
            s, cell->Figure("allocations").median,
            cell->Figure("reallocs").median, cell->Figure("frees").median,
            cell->Figure("peak_live_bytes").median / 1048576,
            cell->Figure("peak_rss_growth_bytes").median / 1048576,
            cell->Figure("rss_over_live").median);
      }
      md += "\n![trace memory](trace_rss.svg)\n\n";
    }
    if (w == "trace_threads") {
      md += "Replay threads and calls (medians). `tlsf` and `size_class` are "
            "single-threaded and ran behind one mutex taken per call; "
            "`tlsf_locked` is the arena's own locked form:\n\n"
            "| allocator | threads | allocations | reallocs | frees | "
            "frees handed to another thread |\n"
            "|---|---:|---:|---:|---:|---:|\n";
      for (const std::string& s : r.subjects) {
        const Cell* cell = r.Find(w, s);
        if (cell == nullptr || !cell->ok()) continue;
        absl::StrAppendFormat(
            &md, "| %s%s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", s,
            FindSubject(s)->thread_safe ? "" : " (locked)",
            cell->Figure("threads").median,
            cell->Figure("allocations").median,
            cell->Figure("reallocs").median, cell->Figure("frees").median,
            cell->Figure("cross_thread_frees").median);
      }
      md += "\n";
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
  bool tensor = false;
  for (const std::string& w : r.workloads) {
    const WorkloadInfo* info = FindWorkload(w);
    tensor = tensor || IsTensorWorkload(w);
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
  if (tensor) files.push_back({"tensor_vs_numpy.svg", TensorSvg(r)});
  for (const auto& [name, text] : files) {
    absl::Status status = WriteFile(dir + "/" + name, text);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace shootout
}  // namespace tessera
