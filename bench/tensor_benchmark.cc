// Copyright 2026 The Tessera Authors.
//
// The tensor engine against NumPy on the cases of the tensor issue, float32 at
// 1e3, 1e5 and 1e7 elements:
//   a + b into an existing output, allocating a + b, sum, arange, zeros, and
//   the broadcast and strided cases: column (r, 1) + row (1, c), matrix
//   (r, c) + row (c,), and a transposed input a.T + b.
//
// One command runs both sides and prints them joined, with ratios:
//
//   tools/bazel run --config=opt //bench:tensor_benchmark
//
// After the Google Benchmark run it writes the results as JSON and runs
// bench/tensor_numpy_bench.py with /usr/bin/python3 (Debian's NumPy), which
// times the same cases and prints the table. `--numpy=0` skips that;
// `--benchmark_format=json` output can also be given to the script by hand.
//
// Timing on a shared, noisy 2-core machine: by default every case runs 5
// repetitions in random interleaved order (--benchmark_repetitions=5
// --benchmark_enable_random_interleaving=true unless given) and the medians
// are reported. Both wall time and process CPU time (all threads) are
// recorded: CPU time is robust to other tenants for single-threaded cases;
// wall time is what multi-threaded cases (1e7: both cores) must be judged by.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "tensor/binary.h"
#include "tensor/parallel.h"
#include "tensor/reduce.h"
#include "tensor/tensor.h"
#include "tensor/testing/benchmark_checks.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using benchmark_checks::Ok;

void SetBytes(benchmark::State& state, int64_t n, int arrays) {
  state.SetBytesProcessed(state.iterations() * n * arrays *
                          static_cast<int64_t>(sizeof(float)));
  state.SetItemsProcessed(state.iterations() * n);
}

// The 2-D shape of the broadcast and transposed cases for n elements; the
// same table is in tensor_numpy_bench.py.
std::pair<int64_t, int64_t> Rows(int64_t n) {
  switch (n) {
    case 1000: return {40, 25};
    case 100000: return {400, 250};
    default: return {4000, n / 4000};
  }
}

void BM_AddInto(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(arange(0, n, 1, DType::kFloat32));
  Tensor b = Ok(ones({n}, DType::kFloat32));
  Tensor out = Ok(empty({n}, DType::kFloat32));
  for (auto _ : state) {
    absl::Status s = add(a, b, out);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  SetBytes(state, n, 3);
}

void BM_AddAllocating(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(arange(0, n, 1, DType::kFloat32));
  Tensor b = Ok(ones({n}, DType::kFloat32));
  for (auto _ : state) {
    auto c = add(a, b);
    benchmark::DoNotOptimize(c);
  }
  SetBytes(state, n, 3);
}

void BM_Sum(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = Ok(ones({n}, DType::kFloat32));
  for (auto _ : state) {
    auto s = sum(a);
    benchmark::DoNotOptimize(s);
  }
  SetBytes(state, n, 1);
}

void BM_Arange(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto t = arange(0, n, 1, DType::kFloat32);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, n, 1);
}

void BM_Zeros(benchmark::State& state) {
  const int64_t n = state.range(0);
  for (auto _ : state) {
    auto t = zeros({n}, DType::kFloat32);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, n, 1);
}

// Outer sum: column (r, 1) + row (1, c) -> (r, c). Every output row is the
// row plus one broadcast scalar (the stride-0 fast path).
void BM_AddRowColumn(benchmark::State& state) {
  const auto [r, c] = Rows(state.range(0));
  Tensor col = Ok(arange(0, r, 1, DType::kFloat32));
  col = Ok(reshape(col, {r, 1}));
  Tensor row = Ok(arange(0, c, 1, DType::kFloat32));
  row = Ok(reshape(row, {1, c}));
  for (auto _ : state) {
    auto t = add(col, row);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, r * c, 1);
}

// matrix (r, c) + row (c,): each row of the matrix plus the same row.
void BM_AddMatrixRow(benchmark::State& state) {
  const auto [r, c] = Rows(state.range(0));
  Tensor m = Ok(arange(0, r * c, 1, DType::kFloat32));
  m = Ok(reshape(m, {r, c}));
  Tensor row = Ok(ones({c}, DType::kFloat32));
  for (auto _ : state) {
    auto t = add(m, row);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, r * c, 2);
}

// a.T + b: a is (c, r) C-contiguous, read transposed; b is (r, c).
void BM_AddTransposed(benchmark::State& state) {
  const auto [r, c] = Rows(state.range(0));
  Tensor a = Ok(arange(0, r * c, 1, DType::kFloat32));
  a = Ok(transpose(Ok(reshape(a, {c, r}))));
  Tensor b = Ok(ones({r, c}, DType::kFloat32));
  for (auto _ : state) {
    auto t = add(a, b);
    benchmark::DoNotOptimize(t);
  }
  SetBytes(state, r * c, 3);
}

#define TESSERA_SIZES                                           \
  ->Arg(1000)->Arg(100000)->Arg(10000000)->MeasureProcessCPUTime() \
      ->UseRealTime()
BENCHMARK(BM_AddInto) TESSERA_SIZES;
BENCHMARK(BM_AddAllocating) TESSERA_SIZES;
BENCHMARK(BM_Sum) TESSERA_SIZES;
BENCHMARK(BM_Arange) TESSERA_SIZES;
BENCHMARK(BM_Zeros) TESSERA_SIZES;
BENCHMARK(BM_AddRowColumn) TESSERA_SIZES;
BENCHMARK(BM_AddMatrixRow) TESSERA_SIZES;
BENCHMARK(BM_AddTransposed) TESSERA_SIZES;

// Console output as usual, and each case's median (or only) run kept for
// the joined table.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  struct Times {
    double real_ns = 0;
    double cpu_ns = 0;
  };

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const bool median = run.run_type == Run::RT_Aggregate &&
                          run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      const std::string name = run.run_name.str();
      if (!median && medians_.count(name) > 0) continue;
      // Per iteration, in the run's time unit (ns unless set otherwise).
      const double to_ns =
          1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      Times t{run.GetAdjustedRealTime() * to_ns,
              run.GetAdjustedCPUTime() * to_ns};
      if (median) {
        medians_[name] = t;
      } else {
        // Without repetitions, the run itself; with them, the first until
        // the median arrives.
        medians_.emplace(name, t);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  const std::map<std::string, Times>& results() const { return medians_; }

 private:
  std::map<std::string, Times> medians_;
};

bool HasFlag(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

int Main(int argc, char** argv) {
  // --numpy=0: Tessera only.
  bool numpy = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--numpy=0") == 0) {
      numpy = false;
      continue;
    }
    args.push_back(argv[i]);
  }
  std::string reps = "--benchmark_repetitions=5";
  std::string interleave = "--benchmark_enable_random_interleaving=true";
  std::string min_time = "--benchmark_min_time=0.1";
  const int given = static_cast<int>(args.size());
  if (!HasFlag(given, args.data(), "--benchmark_repetitions")) {
    args.push_back(reps.data());
  }
  if (!HasFlag(given, args.data(),
               "--benchmark_enable_random_interleaving")) {
    args.push_back(interleave.data());
  }
  if (!HasFlag(given, args.data(), "--benchmark_min_time")) {
    args.push_back(min_time.data());
  }
  if (!HasFlag(given, args.data(), "--benchmark_report_aggregates_only")) {
    static char aggregates[] = "--benchmark_report_aggregates_only=true";
    args.push_back(aggregates);
  }
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  std::printf("tessera threads: %d (TESSERA_NUM_THREADS or SetNumThreads)\n",
              NumThreads());
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (!numpy || reporter.results().empty()) return 0;

  // The results as Google Benchmark-style JSON, for the NumPy script.
  char path[] = "/tmp/tessera_tensor_benchmark_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("tensor_benchmark: mkstemp");
    return 1;
  }
  FILE* f = fdopen(fd, "w");
  std::fprintf(f, "{\"benchmarks\": [\n");
  bool first = true;
  for (const auto& [name, t] : reporter.results()) {
    std::fprintf(f,
                 "%s  {\"name\": \"%s\", \"real_time\": %.3f, "
                 "\"cpu_time\": %.3f, \"time_unit\": \"ns\"}",
                 first ? "" : ",\n", name.c_str(), t.real_ns, t.cpu_ns);
    first = false;
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  // `bazel run` starts in the runfiles tree, where the script is a data
  // dependency; from the workspace root the same relative path works.
  const std::string command =
      std::string("/usr/bin/python3 bench/tensor_numpy_bench.py ") + path;
  std::fflush(stdout);
  const int status = std::system(command.c_str());
  std::remove(path);
  return status == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) { return tessera::Main(argc, argv); }
