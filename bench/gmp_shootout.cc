// Copyright 2026 The Tessera Authors.
//
// The seed's GMP experiment on every allocator: runs //bench:gmp_benchmark
// (x + y with a fresh result, small and 100-digit operands) once per subject
// and round, each run in a fresh child process, and prints the medians with
// ratios to glibc in the same run:
//
//   tools/bazel run --config=opt //bench:gmp_shootout
//   tools/bazel run --config=opt //bench:gmp_shootout -- --rounds=5 --subjects=glibc,size_class
//
// A subject is one line of `kSubjects`: which malloc the child runs on (a
// shootout peer preloaded and proven by bench/shootout/catalog.h, or any
// LD_PRELOAD library proven by where `malloc` resolves) and which GMP route
// of the benchmark it times (GMP's defaults over that malloc, or GMP routed to
// a Tessera allocator in process). Rounds interleave the subjects, so load
// from other tenants spreads over all of them, and each round's children run
// in another process layout (their argv[0] padded: shootout::LayoutArgv0);
// each round runs `--repetitions` repetitions per subject, and the table
// gives the median CPU time over every repetition of every round. `!` marks
// a spread (max - min) / median above 10%.

#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/json.h"
#include "bench/shootout/spawn.h"

ABSL_FLAG(std::string, subjects, "",
          "comma-separated subjects (default: all whose library is installed)");
ABSL_FLAG(int, rounds, 3, "interleaved rounds over all subjects");
ABSL_FLAG(int, repetitions, 3, "benchmark repetitions per subject and round");
ABSL_FLAG(double, min_time, 0.2, "seconds per repetition (--benchmark_min_time)");
ABSL_FLAG(std::string, benchmark, "",
          "path of gmp_benchmark (default: found in the runfiles)");

namespace tessera {
namespace {

// One subject: one line. To add one:
//   * a Tessera allocator under GMP: a route in gmp_benchmark.cc's kRoutes,
//     and {"<name>", "glibc", nullptr, "<route>", "..."} here;
//   * an LD_PRELOAD library: {"<name>", nullptr, "<runfiles path>", "malloc",
//     "..."} here, and the library in bench/BUILD's gmp_shootout data;
//   * a malloc linked into the benchmark binary: {"<name>", nullptr, nullptr,
//     "malloc", "...", "<runfiles path of that binary>"} (its own proof flag
//     in `linked_proof`).
struct Subject {
  const char* name;
  // Shootout peer the child runs on, preloaded (catalog's library) and
  // proven with ProveActiveAllocator; nullptr: `library` instead.
  const char* peer;
  // LD_PRELOAD library (a runfiles path or absolute), proven by `malloc`
  // resolving into it. Used when `peer` is nullptr.
  const char* library;
  // gmp_benchmark's route: "malloc" is GMP's default functions.
  const char* route;
  const char* description;
  // A binary other than gmp_benchmark (runfiles path) that links its malloc
  // in, run with no preload and proven by `linked_proof`; nullptr for the
  // others.
  const char* linked_binary = nullptr;
  const char* linked_proof = nullptr;
};

constexpr Subject kSubjects[] = {
    {"glibc", "glibc", nullptr, "malloc", "GMP defaults, glibc malloc"},
    {"jemalloc", "jemalloc", nullptr, "malloc", "GMP defaults, jemalloc preloaded"},
    {"mimalloc", "mimalloc", nullptr, "malloc", "GMP defaults, mimalloc preloaded"},
    {"tcmalloc", "tcmalloc", nullptr, "malloc", "GMP defaults, tcmalloc preloaded"},
    {"size_class", "glibc", nullptr, "size_class",
     "GMP routed to a SizeClassPool (alloc/gmp, devirtualised)"},
    {"size_class_virtual", "glibc", nullptr, "size_class_virtual",
     "GMP routed to a SizeClassPool through Allocator&"},
    {"tessera_route", "glibc", nullptr, "tessera_malloc",
     "GMP routed to GlobalTesseraMalloc() (alloc/gmp), glibc malloc"},
    {"tessera_fast_route", "glibc", nullptr, "tessera_fast_paths",
     "GMP routed to Tessera malloc's fast paths (alloc/malloc/gmp_route.h), "
     "glibc malloc"},
    {"tessera_preload", nullptr, "alloc/malloc/libtessera_malloc.so", "malloc",
     "GMP defaults, libtessera_malloc.so preloaded"},
    {"tessera_linked", nullptr, nullptr, "malloc",
     "GMP defaults, //alloc/malloc:malloc_override linked in",
     "bench/gmp_benchmark_tessera_linked", "--prove_linked_tessera_malloc"},
};

constexpr const char* kOperands[] = {"small", "big"};

bool Exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// A file of this workspace's runfiles: under $RUNFILES_DIR, beside the
// binary's .runfiles, or relative to the working directory (bazel run).
std::string Runfile(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  std::vector<std::string> candidates;
  if (const char* dir = std::getenv("RUNFILES_DIR")) {
    candidates.push_back(absl::StrCat(dir, "/tessera/", path));
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    candidates.push_back(absl::StrCat(self, ".runfiles/tessera/", path));
  }
  candidates.push_back(path);
  for (const std::string& c : candidates) {
    char real[PATH_MAX];
    if (Exists(c) && realpath(c.c_str(), real) != nullptr) return real;
  }
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program` with `args` (argv[0] included) and LD_PRELOAD=`preload`
// (none when empty; the caller's own LD_PRELOAD is dropped); returns its
// stdout, and fails unless it exited with status 0. Its stderr (Google
// Benchmark's context banner) goes to `stderr_path`, shown only on failure.
absl::StatusOr<std::string> Run(const std::string& program,
                                std::vector<std::string> args,
                                const std::string& preload,
                                const std::string& stderr_path) {
  std::string output;
  int status = 0;
  const absl::Status spawned = shootout::Spawn(
      program, std::move(args), preload, &output, &status, stderr_path);
  if (!spawned.ok()) return spawned;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string error;
    for (absl::string_view line : absl::StrSplit(output, '\n')) {
      if (absl::StartsWith(line, "error: ")) error = std::string(line.substr(7));
    }
    const std::string child_stderr = ReadFile(stderr_path);
    if (!child_stderr.empty()) {
      std::fprintf(stderr, "gmp_shootout: the child's stderr:\n%s",
                   child_stderr.c_str());
    }
    return absl::InternalError(absl::StrCat(
        WIFSIGNALED(status)
            ? absl::StrCat("child killed by signal ", WTERMSIG(status))
            : absl::StrCat("child exited with status ", WEXITSTATUS(status)),
        error.empty() ? "" : ": ", error));
  }
  return output;
}

double ToNs(double value, const std::string& unit) {
  if (unit == "us") return value * 1e3;
  if (unit == "ms") return value * 1e6;
  if (unit == "s") return value * 1e9;
  return value;
}

// What one child measured: CPU ns per addition of every repetition, by
// operand name; and its proof line.
struct ChildRun {
  std::map<std::string, std::vector<double>> ns;
  std::string proof;
};

// `round` (from 1) picks the child's process layout (shootout::LayoutArgv0):
// the same for every subject of a round, another in the next.
absl::StatusOr<ChildRun> RunSubject(const std::string& benchmark,
                                    const Subject& subject,
                                    const std::string& preload, int round) {
  char out_template[] = "/tmp/gmp_shootout_XXXXXX";
  const int fd = mkstemp(out_template);
  if (fd < 0) return absl::InternalError("cannot create a temporary file");
  close(fd);
  const std::string out = out_template;
  std::vector<std::string> args = {
      shootout::LayoutArgv0("gmp_benchmark", round - 1),
      subject.linked_proof != nullptr ? std::string(subject.linked_proof)
      : subject.peer != nullptr
          ? absl::StrCat("--prove_allocator=", subject.peer)
          : absl::StrCat("--prove_library=", preload),
      absl::StrCat("--benchmark_filter=^gmp_add/", subject.route, "/"),
      absl::StrCat("--benchmark_repetitions=",
                   absl::GetFlag(FLAGS_repetitions)),
      absl::StrCat("--benchmark_min_time=", absl::GetFlag(FLAGS_min_time)),
      "--benchmark_out_format=json",
      absl::StrCat("--benchmark_out=", out),
  };
  const std::string err = out + ".stderr";
  const std::string program = subject.linked_binary != nullptr
                                  ? Runfile(subject.linked_binary)
                                  : benchmark;
  absl::StatusOr<std::string> output =
      Run(program, std::move(args), preload, err);
  const std::string json_text = ReadFile(out);
  std::remove(out.c_str());
  std::remove(err.c_str());
  if (!output.ok()) return output.status();

  ChildRun run;
  for (absl::string_view line : absl::StrSplit(*output, '\n')) {
    if (absl::StartsWith(line, "proof: ")) run.proof = std::string(line.substr(7));
  }
  if (run.proof.empty()) {
    return absl::InternalError("the child printed no proof of its allocator");
  }
  absl::StatusOr<shootout::JsonValue> json = shootout::ParseJson(json_text);
  if (!json.ok()) return json.status();
  const shootout::JsonValue* benchmarks = json->Find("benchmarks");
  if (benchmarks == nullptr) {
    return absl::InternalError("no 'benchmarks' in the benchmark's JSON");
  }
  for (const shootout::JsonValue& b : benchmarks->array) {
    const shootout::JsonValue* name = b.Find("name");
    const shootout::JsonValue* run_type = b.Find("run_type");
    const shootout::JsonValue* cpu = b.Find("cpu_time");
    const shootout::JsonValue* unit = b.Find("time_unit");
    if (const shootout::JsonValue* error = b.Find("error_message")) {
      return absl::InternalError(absl::StrCat("benchmark failed: ", error->string));
    }
    if (name == nullptr || cpu == nullptr || unit == nullptr ||
        (run_type != nullptr && run_type->string != "iteration")) {
      continue;
    }
    for (const char* operand : kOperands) {
      if (absl::EndsWith(name->string, absl::StrCat("/", operand))) {
        run.ns[operand].push_back(ToNs(cpu->number, unit->string));
      }
    }
  }
  for (const char* operand : kOperands) {
    if (run.ns[operand].empty()) {
      return absl::InternalError(
          absl::StrCat("no '", operand, "' figures for route ", subject.route));
    }
  }
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Spread(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double median = Median(v);
  return median > 0 ? (*hi - *lo) / median : 0;
}

// The LD_PRELOAD value for `subject`, or why it cannot run here.
absl::StatusOr<std::string> PreloadFor(const Subject& subject) {
  if (subject.linked_binary != nullptr) {
    // Not built in sanitizer configurations (their runtimes own malloc).
    if (access(Runfile(subject.linked_binary).c_str(), X_OK) != 0) {
      return absl::NotFoundError(
          absl::StrCat("binary ", subject.linked_binary, " not found"));
    }
    return std::string();
  }
  if (subject.peer == nullptr) {
    const std::string library = Runfile(subject.library);
    if (!Exists(library)) {
      return absl::NotFoundError(
          absl::StrCat("library ", subject.library, " not found"));
    }
    return library;
  }
  const shootout::PeerLibrary* peer = shootout::FindPeer(subject.peer);
  if (peer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown peer '", subject.peer, "'"));
  }
  if (peer->path[0] != '\0' && !Exists(peer->path)) {
    return absl::NotFoundError(absl::StrCat(peer->path, " missing: install ",
                                            peer->debian_package));
  }
  return std::string(peer->path);
}

int Main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Times GMP x + y (fresh result) on every allocator, each in its own "
      "process; prints medians and ratios to glibc.");
  absl::ParseCommandLine(argc, argv);
  const int rounds = absl::GetFlag(FLAGS_rounds);
  if (rounds < 1 || absl::GetFlag(FLAGS_repetitions) < 1 ||
      absl::GetFlag(FLAGS_min_time) <= 0) {
    std::fprintf(stderr,
                 "gmp_shootout: --rounds (%d) and --repetitions (%d) must be "
                 "at least 1 and --min_time (%g) positive\n",
                 rounds, absl::GetFlag(FLAGS_repetitions),
                 absl::GetFlag(FLAGS_min_time));
    return 2;
  }
  std::string benchmark = absl::GetFlag(FLAGS_benchmark);
  if (benchmark.empty()) benchmark = Runfile("bench/gmp_benchmark");
  if (access(benchmark.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "gmp_shootout: benchmark binary '%s' not found\n",
                 benchmark.c_str());
    return 2;
  }

  // Which subjects, and their preloads.
  std::vector<const Subject*> chosen;
  std::vector<std::string> preloads;
  const std::string wanted = absl::GetFlag(FLAGS_subjects);
  if (!wanted.empty()) {
    for (absl::string_view name : absl::StrSplit(wanted, ',')) {
      const Subject* found = nullptr;
      for (const Subject& s : kSubjects) {
        if (name == s.name) found = &s;
      }
      if (found == nullptr) {
        std::vector<std::string> names;
        for (const Subject& s : kSubjects) names.push_back(s.name);
        std::fprintf(stderr, "gmp_shootout: unknown subject '%s' (known: %s)\n",
                     std::string(name).c_str(),
                     absl::StrJoin(names, ", ").c_str());
        return 2;
      }
      chosen.push_back(found);
    }
  } else {
    for (const Subject& s : kSubjects) chosen.push_back(&s);
  }
  std::vector<const Subject*> runnable;
  for (const Subject* s : chosen) {
    absl::StatusOr<std::string> preload = PreloadFor(*s);
    if (!preload.ok()) {
      std::fprintf(stderr, "gmp_shootout: skipping %s: %s\n", s->name,
                   std::string(preload.status().message()).c_str());
      if (!wanted.empty()) return 1;  // asked for by name: an error
      continue;
    }
    runnable.push_back(s);
    preloads.push_back(*preload);
  }

  std::map<std::string, ChildRun> results;
  for (int round = 1; round <= rounds; ++round) {
    for (size_t i = 0; i < runnable.size(); ++i) {
      const Subject& s = *runnable[i];
      std::fprintf(stderr, "gmp_shootout: round %d/%d: %s\n", round, rounds,
                   s.name);
      absl::StatusOr<ChildRun> run =
          RunSubject(benchmark, s, preloads[i], round);
      if (!run.ok()) {
        std::fprintf(stderr, "gmp_shootout: %s: %s\n", s.name,
                     run.status().ToString().c_str());
        return 1;
      }
      ChildRun& all = results[s.name];
      all.proof = run->proof;
      for (auto& [operand, ns] : run->ns) {
        all.ns[operand].insert(all.ns[operand].end(), ns.begin(), ns.end());
      }
    }
  }

  std::map<std::string, double> baseline;
  if (results.count("glibc") != 0) {
    for (const char* operand : kOperands) {
      baseline[operand] = Median(results["glibc"].ns[operand]);
    }
  }
  std::printf(
      "GMP x + y, fresh result each time (mpz_init, mpz_add, mpz_clear): "
      "median CPU ns over %d round(s) x %d repetition(s), ratio to glibc in "
      "this run; ! = spread above 10%%\n\n",
      rounds, absl::GetFlag(FLAGS_repetitions));
  std::printf("%-20s %14s %8s %18s %8s\n", "subject", "small (3 + 5)",
              "ratio", "big (100 digits)", "ratio");
  for (const Subject* s : runnable) {
    const ChildRun& run = results[s->name];
    std::string cells;
    for (const char* operand : kOperands) {
      const std::vector<double>& ns = run.ns.at(operand);
      const double median = Median(ns);
      const std::string time = absl::StrFormat(
          "%.1f ns%s", median, Spread(ns) > 0.10 ? "!" : " ");
      const std::string ratio =
          baseline.count(operand) != 0
              ? absl::StrFormat("%.2fx", median / baseline[operand])
              : "n/a";
      absl::StrAppend(&cells, operand == std::string("small")
                                  ? absl::StrFormat(" %14s %8s", time, ratio)
                                  : absl::StrFormat(" %18s %8s", time, ratio));
    }
    std::printf("%-20s%s\n", s->name, cells.c_str());
  }
  std::printf("\n");
  for (const Subject* s : runnable) {
    std::printf("%-20s %s; %s\n", s->name, s->description,
                results[s->name].proof.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
