// Copyright 2026 The Tessera Authors.
//
// The shootout: every workload against every Tessera allocator and the
// global-malloc peers (glibc, jemalloc, mimalloc, tcmalloc), with an honest
// report. Run it optimised:
//
//   tools/bazel run --config=opt //bench/shootout:shootout -- --out=/tmp/r
//
// The parent process never measures anything. For each round, each workload
// and each allocator (the allocator order rotates every round) it re-executes
// itself as a child:
//
//   shootout --subject=<allocator> --peer=<global malloc> --workloads=<one>
//
// with argv[0] padded by a length that changes every round (LayoutArgv0, so
// each round samples another process layout) and LD_PRELOAD set to the
// peer's library (cleared for glibc and for Tessera's allocators, which run
// on glibc). The child proves which malloc is
// active (catalog.h), validates, measures, and prints one JSON object on
// stdout; it refuses to report if the proof fails.
//
// The tensor workloads' NumPy side runs as a Python child instead
// (numpy_child.h); the parent first checks that NumPy imports, and when it
// does not, says so and reports the NumPy column as skipped.
//
// Exit status: 0 when everything ran; 1 when a measurement failed (the
// report still says which, and why); 2 for bad flags or a peer library named
// in --allocators that is not installed; 3 in a child that cannot report.

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/shootout/arena_map.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/json.h"
#include "bench/shootout/numpy_child.h"
#include "bench/shootout/report.h"
#include "bench/shootout/spawn.h"
#include "bench/shootout/workloads.h"
#include "tools/alloc_trace/trace_reader.h"

ABSL_FLAG(std::string, workloads, "",
          "Comma-separated workloads to run (default: all).");
ABSL_FLAG(std::string, allocators, "",
          "Comma-separated allocators to run (default: all). glibc is always "
          "run: it is the baseline of every ratio.");
ABSL_FLAG(int, rounds, 0, "Rounds per measurement (default 5, --quick 3).");
ABSL_FLAG(bool, quick, false,
          "A reduced run of every workload (about 1/8 of the work, W1 64 batches).");
ABSL_FLAG(std::string, out, "",
          "Directory for report.md, results.json and the SVG charts.");
ABSL_FLAG(std::string, trace, "",
          "Replay this allocation trace (recorded with tools/alloc_trace) "
          "against every allocator, as the workload 'trace' (the only one "
          "unless --workloads says otherwise).");
ABSL_FLAG(double, size_factor, 1.0,
          "Multiplies every workload's iteration counts (tests use 0.01).");
ABSL_FLAG(std::string, peer_libs, "",
          "Override peer libraries: name=path,... (e.g. to try another "
          "jemalloc build).");
ABSL_FLAG(std::string, python, tessera::shootout::kDefaultPython,
          "Python interpreter that runs NumPy's side of the tensor workloads "
          "(Debian's python3-numpy); without NumPy those are reported as "
          "skipped.");
// Child mode (set by the parent, not by users).
ABSL_FLAG(std::string, subject, "",
          "Child mode: measure this allocator on the single --workloads.");
ABSL_FLAG(std::string, peer, "",
          "Child mode: the global malloc that must be active (proven).");
ABSL_FLAG(std::string, arena_map, "",
          "Child mode, w4 on tlsf: write the arena's picture (SVG) here.");

namespace tessera {
namespace shootout {
namespace {

std::vector<std::string> SplitList(const std::string& list) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    out.emplace_back(absl::StripAsciiWhitespace(part));
  }
  return out;
}

std::string KnownWorkloads() {
  std::vector<std::string> names;
  for (const WorkloadInfo& w : AllWorkloads()) names.push_back(w.name);
  return absl::StrJoin(names, ", ");
}

std::string KnownSubjects() {
  std::vector<std::string> names;
  for (const SubjectInfo& s : AllSubjects()) names.push_back(s.name);
  return absl::StrJoin(names, ", ");
}

// ---- Child. ----

int RunChild() {
  const std::string subject = absl::GetFlag(FLAGS_subject);
  const std::string peer = absl::GetFlag(FLAGS_peer);
  const std::string workload = absl::GetFlag(FLAGS_workloads);
  auto fail = [&](const absl::Status& status) {
    std::fprintf(stderr, "shootout child (%s on %s): %s\n", workload.c_str(),
                 subject.c_str(), status.ToString().c_str());
    std::printf("{\"error\": %s}\n", JsonQuote(status.ToString()).c_str());
    return 3;
  };
  const SubjectInfo* info = FindSubject(subject);
  if (info == nullptr || FindWorkload(workload) == nullptr) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "child needs a known --subject and one --workloads, got '", subject,
        "' and '", workload, "'")));
  }
  const std::string expected_peer = info->is_peer ? subject : "glibc";
  if (peer != expected_peer) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "--subject=", subject, " runs on --peer=", expected_peer, ", not '",
        peer, "'")));
  }
  absl::StatusOr<std::string> proof = ProveActiveAllocator(peer);
  if (!proof.ok()) return fail(proof.status());
  const bool replay = workload == "trace" || workload == "trace_threads";
  absl::StatusOr<alloc_trace::Trace> trace;
  if (replay) {
    trace = alloc_trace::ReadTrace(absl::GetFlag(FLAGS_trace));
    if (!trace.ok()) return fail(trace.status());
  }
  ArenaSnapshot snapshot;
  absl::StatusOr<Metrics> metrics = Measure(
      subject, workload,
      absl::GetFlag(FLAGS_quick) ? Scale::kQuick : Scale::kFull,
      replay ? &*trace : nullptr, absl::GetFlag(FLAGS_size_factor),
      &snapshot);
  if (!metrics.ok()) return fail(metrics.status());
  const std::string map_path = absl::GetFlag(FLAGS_arena_map);
  if (!map_path.empty() && snapshot.taken) {
    std::ofstream map(map_path, std::ios::binary | std::ios::trunc);
    map << ArenaMapSvg(snapshot,
                       absl::StrCat("TLSF arena after W4 (", subject,
                                    absl::GetFlag(FLAGS_quick) ? ", --quick"
                                                               : "",
                                    "), blocks still live"));
    map.close();
    if (!map) {
      return fail(absl::UnavailableError(
          absl::StrCat("cannot write the arena map ", map_path)));
    }
  }
  std::vector<std::string> figures;
  for (const auto& [name, value] : *metrics) {
    figures.push_back(absl::StrCat(JsonQuote(name), ": ", JsonNumber(value)));
  }
  std::printf(
      "{\"subject\": %s, \"peer\": %s, \"workload\": %s, \"active\": %s, "
      "\"metrics\": {%s}}\n",
      JsonQuote(subject).c_str(), JsonQuote(peer).c_str(),
      JsonQuote(workload).c_str(), JsonQuote(*proof).c_str(),
      absl::StrJoin(figures, ", ").c_str());
  return 0;
}

// ---- Parent. ----

struct ChildResult {
  Metrics metrics;
  std::string proof;
};

// Runs one child and parses what it printed.
absl::StatusOr<ChildResult> RunOne(const std::string& subject,
                                   const std::string& peer,
                                   const std::string& preload,
                                   const std::string& workload, bool quick,
                                   const std::string& arena_map, int round) {
  std::vector<std::string> args;
  const char* program = "/proc/self/exe";
  const std::string python = absl::GetFlag(FLAGS_python);
  if (subject == kNumpy) {
    std::string op;
    int64_t elements = 0;
    if (!ParseTensorWorkload(workload, &op, &elements)) {
      return absl::InvalidArgumentError(
          absl::StrCat("numpy runs tensor workloads only, not '", workload,
                       "'"));
    }
    program = python.c_str();
    args = NumpyChildArgs(
        python, workload, op, elements,
        TensorIterations(op, elements, quick ? Scale::kQuick : Scale::kFull,
                         absl::GetFlag(FLAGS_size_factor)));
  } else {
    args = {LayoutArgv0("shootout", round),
            absl::StrCat("--subject=", subject),
            absl::StrCat("--peer=", peer),
            absl::StrCat("--workloads=", workload)};
    if (quick) args.push_back("--quick");
    args.push_back(
        absl::StrCat("--size_factor=", absl::GetFlag(FLAGS_size_factor)));
    if (workload == "trace" || workload == "trace_threads") {
      args.push_back(absl::StrCat("--trace=", absl::GetFlag(FLAGS_trace)));
    }
    if (!arena_map.empty()) {
      args.push_back(absl::StrCat("--arena_map=", arena_map));
    }
  }
  std::string output;
  int status = 0;
  absl::Status spawned = Spawn(program, std::move(args), preload, &output,
                               &status);
  if (!spawned.ok()) return spawned;
  absl::StatusOr<JsonValue> json = ParseJson(output);
  if (json.ok()) {
    if (const JsonValue* error = json->Find("error")) {
      return absl::InternalError(error->string);
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        WIFSIGNALED(status)
            ? absl::StrCat("child killed by signal ", WTERMSIG(status))
            : absl::StrCat("child exited with status ", WEXITSTATUS(status)));
  }
  if (!json.ok()) return json.status();
  const JsonValue* metrics = json->Find("metrics");
  const JsonValue* active = json->Find("active");
  const JsonValue* reported_peer = json->Find("peer");
  if (metrics == nullptr || active == nullptr || reported_peer == nullptr ||
      reported_peer->string != peer) {
    return absl::InternalError(absl::StrCat("child report incomplete: ", output));
  }
  ChildResult result;
  result.proof = active->string;
  for (const auto& [name, value] : metrics->object) {
    result.metrics.push_back({name, value.number});
  }
  return result;
}

std::string NowUtc() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", std::gmtime(&now));
  return text;
}

int RunParent() {
  // Which workloads and allocators.
  std::vector<std::string> workloads = SplitList(absl::GetFlag(FLAGS_workloads));
  const std::string trace_path = absl::GetFlag(FLAGS_trace);
  const bool default_workloads = workloads.empty();
  if (default_workloads && trace_path.empty()) {
    for (const WorkloadInfo& w : AllWorkloads()) {
      const std::string name = w.name;
      if (name != "trace" && name != "trace_threads") workloads.push_back(name);
    }
  }
  for (const std::string& w : workloads) {
    if ((w == "trace" || w == "trace_threads") && trace_path.empty()) {
      std::fprintf(stderr, "shootout: workload '%s' needs --trace=FILE\n",
                   w.c_str());
      return 2;
    }
  }
  if (!trace_path.empty()) {
    // Checked here once, so that a bad trace is one clear message, not a
    // failure per child.
    absl::StatusOr<alloc_trace::Trace> trace = alloc_trace::ReadTrace(trace_path);
    if (!trace.ok()) {
      std::fprintf(stderr, "shootout: %s\n",
                   std::string(trace.status().message()).c_str());
      return 2;
    }
    if (trace->ops.empty()) {
      std::fprintf(stderr,
                   "shootout: trace %s holds no allocations (was the "
                   "recorded program statically linked, or did it exit "
                   "with _exit?)\n",
                   trace_path.c_str());
      return 2;
    }
    std::fprintf(stderr,
                 "trace %s: %zu operations, %llu threads (%llu blocks freed "
                 "on another thread), %u blocks live at most, %llu frees of "
                 "earlier blocks skipped\n",
                 trace_path.c_str(), trace->ops.size(),
                 static_cast<unsigned long long>(trace->threads),
                 static_cast<unsigned long long>(trace->cross_thread_frees),
                 trace->slots,
                 static_cast<unsigned long long>(trace->unmatched_frees));
    if (default_workloads) {
      // The threaded replay only differs from the plain one when the
      // program had threads.
      workloads.push_back("trace");
      if (trace->threads > 1) workloads.push_back("trace_threads");
    }
  }
  for (const std::string& w : workloads) {
    if (FindWorkload(w) == nullptr) {
      std::fprintf(stderr, "shootout: unknown workload '%s'; known: %s\n",
                   w.c_str(), KnownWorkloads().c_str());
      return 2;
    }
  }
  const std::vector<std::string> asked =
      SplitList(absl::GetFlag(FLAGS_allocators));
  std::set<std::string> wanted(asked.begin(), asked.end());
  for (const std::string& a : asked) {
    if (FindSubject(a) == nullptr) {
      std::fprintf(stderr, "shootout: unknown allocator '%s'; known: %s\n",
                   a.c_str(), KnownSubjects().c_str());
      return 2;
    }
  }
  // Peer library overrides.
  std::map<std::string, std::string> peer_path;
  for (const PeerLibrary& p : AllPeers()) peer_path[p.name] = p.path;
  for (const std::string& item : SplitList(absl::GetFlag(FLAGS_peer_libs))) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, '=');
    if (FindPeer(kv.first) == nullptr || kv.first == std::string(kBaseline) ||
        kv.second.empty()) {
      std::fprintf(stderr,
                   "shootout: bad --peer_libs entry '%s': want name=path with "
                   "name one of jemalloc, mimalloc, tcmalloc\n",
                   item.c_str());
      return 2;
    }
    peer_path[kv.first] = kv.second;
  }
  const int rounds_flag = absl::GetFlag(FLAGS_rounds);
  if (rounds_flag < 0 || rounds_flag > 100) {
    std::fprintf(stderr, "shootout: --rounds=%d is outside 1..100\n",
                 rounds_flag);
    return 2;
  }
  const bool quick = absl::GetFlag(FLAGS_quick);
  const double size_factor = absl::GetFlag(FLAGS_size_factor);
  if (!(size_factor > 0 && size_factor <= 100)) {
    std::fprintf(stderr, "shootout: --size_factor=%g is outside (0, 100]\n",
                 size_factor);
    return 2;
  }

  const bool tensor = std::any_of(workloads.begin(), workloads.end(),
                                  [](const std::string& w) {
                                    return IsTensorWorkload(w);
                                  });
  const std::string out = absl::GetFlag(FLAGS_out);
  if (!out.empty() && mkdir(out.c_str(), 0755) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "shootout: cannot create %s: %s\n", out.c_str(),
                 std::strerror(errno));
    return 2;
  }

  RunResults results;
  results.quick = quick;
  results.rounds = rounds_flag != 0 ? rounds_flag : (quick ? 3 : 5);
  results.workloads = workloads;
  results.started_utc = NowUtc();
  for (const SubjectInfo& s : AllSubjects()) {
    const bool baseline = s.name == std::string(kBaseline);
    const bool numpy = s.name == std::string(kNumpy);
    if (numpy) {
      // NumPy is the tensor workloads' baseline: run whenever they are.
      if (!tensor) continue;
      std::string output;
      int status = 0;
      const std::string python = absl::GetFlag(FLAGS_python);
      absl::Status spawned =
          Spawn(python.c_str(), NumpyProbeArgs(python), "", &output, &status);
      absl::StatusOr<JsonValue> probe = ParseJson(output);
      std::string problem;
      if (!spawned.ok()) {
        problem = absl::StrCat("NumPy comparison skipped: ",
                               spawned.message(),
                               " (install python3-numpy, or give --python)");
      } else if (probe.ok() && probe->Find("error") != nullptr) {
        problem = probe->Find("error")->string;
      } else if (!probe.ok() || probe->Find("active") == nullptr ||
                 !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        problem = absl::StrCat("NumPy comparison skipped: ", python,
                               " did not run the NumPy probe (exit status ",
                               WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                               "); install python3-numpy, or give --python");
      }
      if (!problem.empty()) {
        std::fprintf(stderr, "shootout: %s\n", problem.c_str());
        if (wanted.count(s.name)) return 2;  // asked for by name: an error
        results.missing[s.name] = problem;
        continue;
      }
      results.subjects.push_back(s.name);
      continue;
    }
    if (!wanted.empty() && !wanted.count(s.name) && !baseline) continue;
    if (s.is_peer && !baseline && access(peer_path[s.name].c_str(), R_OK) != 0) {
      const PeerLibrary* lib = FindPeer(s.name);
      const std::string message = absl::StrFormat(
          "%s not found: install the Debian package %s", peer_path[s.name],
          lib->debian_package);
      std::fprintf(stderr, "shootout: peer %s is missing: %s\n", s.name,
                   message.c_str());
      if (wanted.count(s.name)) return 2;  // asked for by name: an error
      results.missing[s.name] = message;
      continue;
    }
    results.subjects.push_back(s.name);
  }

  // Rounds outermost, allocator order rotated each round: a slow phase of
  // the shared machine hits every allocator, not one.
  std::vector<std::string> order = results.subjects;
  int total = 0;
  for (const std::string& w : workloads) {
    for (const std::string& s : order) total += Supports(*FindSubject(s), w);
  }
  total *= results.rounds;
  int done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < results.rounds; ++round) {
    for (const std::string& w : workloads) {
      for (const std::string& s : order) {
        const SubjectInfo* info = FindSubject(s);
        if (!Supports(*info, w)) continue;
        Cell& cell = results.cells[{w, s}];
        ++done;
        const double elapsed = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
        std::fprintf(stderr, "\r[%4d/%4d] %5.0fs  round %d/%d  %-10s %-13s",
                     done, total, elapsed, round + 1, results.rounds, w.c_str(),
                     s.c_str());
        std::fflush(stderr);
        if (!cell.error.empty()) continue;  // failed before: not ranked
        // NumPy's child reports "numpy" as its own peer (its malloc is
        // glibc's, inside Python).
        const std::string peer =
            info->is_peer || s == kNumpy ? s : std::string(kBaseline);
        // The arena's picture is taken in the last round.
        std::string arena_map;
        if (!out.empty() && s == "tlsf" && w == "w4" &&
            round + 1 == results.rounds) {
          arena_map = out + "/tlsf_arena_map.svg";
        }
        absl::StatusOr<ChildResult> child =
            RunOne(s, peer, s == kNumpy ? "" : peer_path[peer], w, quick,
                   arena_map, round);
        if (!child.ok()) {
          cell.error = std::string(child.status().message());
          std::fprintf(stderr, "\nshootout: %s on %s failed: %s\n", w.c_str(),
                       s.c_str(), cell.error.c_str());
          continue;
        }
        cell.rounds.push_back(std::move(child->metrics));
        if (info->is_peer || s == kNumpy) results.proofs[s] = child->proof;
        if (!arena_map.empty()) results.arena_map = "tlsf_arena_map.svg";
      }
    }
    std::rotate(order.begin(), order.begin() + 1, order.end());
  }
  results.seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  std::fprintf(stderr, "\rdone: %d measurements in %.0f s%30s\n", total,
               results.seconds, "");

  std::printf("%s", TerminalTable(results).c_str());
  std::printf("\nRecommendation:\n");
  for (const std::string& line : Recommendations(results)) {
    std::printf("  %s\n", line.c_str());
  }
  for (const auto& [peer, message] : results.missing) {
    std::printf("missing peer %s: %s\n", peer.c_str(), message.c_str());
  }
  if (!out.empty()) {
    absl::Status written = WriteReport(results, out);
    if (!written.ok()) {
      std::fprintf(stderr, "shootout: %s\n", written.ToString().c_str());
      return 1;
    }
    std::printf("report: %s/report.md\n", out.c_str());
  }
  for (const auto& [key, cell] : results.cells) {
    if (!cell.error.empty()) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace shootout
}  // namespace tessera

int main(int argc, char** argv) {
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    std::fprintf(stderr, "shootout: unexpected argument '%s' (flags only)\n",
                 positional[1]);
    return 2;
  }
  if (!absl::GetFlag(FLAGS_subject).empty() ||
      !absl::GetFlag(FLAGS_peer).empty()) {
    return tessera::shootout::RunChild();
  }
  return tessera::shootout::RunParent();
}
