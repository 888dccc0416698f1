// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: report.h
// -----------------------------------------------------------------------------
//
// What a shootout run found, and its three renderings: the terminal table,
// the --out directory (report.md with a recommendation per workload, one SVG
// bar chart per workload, W4's latency-percentile and RSS charts) and
// results.json with every figure of every round.
//
// Figures are summarised as the median over rounds with min and max; the
// spread is (max - min) / median and a figure whose spread exceeds 10% is
// marked "!" (too noisy to trust the last digit, or the ranking against a
// close neighbour). Every median is also given as a ratio to glibc's median
// of the same figure in the same run: for times, below 1 is faster.

#ifndef TESSERA_BENCH_SHOOTOUT_REPORT_H_
#define TESSERA_BENCH_SHOOTOUT_REPORT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "bench/shootout/workloads.h"

namespace tessera {
namespace shootout {

inline constexpr double kNoisySpread = 0.10;

struct Summary {
  double median = 0, min = 0, max = 0;
  double spread = 0;  // (max - min) / median
  bool noisy() const { return spread > kNoisySpread; }
};
Summary Summarize(std::vector<double> values);

// One workload on one subject over all rounds.
struct Cell {
  std::vector<Metrics> rounds;
  std::string error;  // non-empty: a round failed and the cell is not ranked
  bool ok() const { return error.empty() && !rounds.empty(); }
  // Summary of the named figure over the rounds (zeroes if absent).
  Summary Figure(const std::string& metric) const;
};

struct RunResults {
  std::vector<std::string> workloads;  // in run order
  std::vector<std::string> subjects;   // in catalog order, glibc first
  std::map<std::pair<std::string, std::string>, Cell> cells;  // (w, s)
  std::map<std::string, std::string> proofs;   // peer -> how it was proven
  std::map<std::string, std::string> missing;  // peer -> message
  int rounds = 0;
  bool quick = false;
  double seconds = 0;
  std::string started_utc;
  // File name (in the --out directory) of the TLSF arena picture taken after
  // W4, or empty when none was drawn.
  std::string arena_map;

  const Cell* Find(const std::string& workload,
                   const std::string& subject) const;
};

// The headline: one row per workload, glibc's ns/op then every subject's
// time ratio to glibc ("!" where noisy, "n/a" where not run). The tensor
// workloads follow in a table of their own whose baseline is NumPy (columns:
// the Tessera allocators the tensors' storage came from); when NumPy is
// missing that column says "skipped" and the others give times, not ratios.
std::string TerminalTable(const RunResults& results);

// For each workload: the fastest subject and its ratio to glibc, and a
// warning when the runner-up is within the winner's spread.
std::vector<std::string> Recommendations(const RunResults& results);

std::string ResultsJson(const RunResults& results);
std::string MarkdownReport(const RunResults& results);

// Writes report.md, results.json and the SVG charts into `dir` (created if
// missing). Returns the first I/O error, naming the file.
absl::Status WriteReport(const RunResults& results, const std::string& dir);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_REPORT_H_
