// Copyright 2026 The Tessera Authors.
//
// Runs the shootout binary as a user would: a --quick run of one small
// workload on glibc and the TLSF arena must write a report whose JSON and
// Markdown agree with the run, and bad flags must fail with a message.

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/shootout/catalog.h"
#include "bench/shootout/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/alloc_trace/trace_format.h"

namespace tessera {
namespace shootout {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Binary() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "tessera",
                      "/bench/shootout/shootout");
}

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` (and an optional environment prefix).
Outcome RunShootout(const std::string& args, const std::string& env = "") {
  static int counter = 0;
  const std::string base = absl::StrCat(TmpDir(), "/run", counter++);
  const std::string command =
      absl::StrCat(env, env.empty() ? "" : " ", Binary(), " ", args, " >",
                   base, ".out 2>", base, ".err");
  const int status = std::system(command.c_str());
  Outcome run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadFile(base + ".out");
  run.err = ReadFile(base + ".err");
  return run;
}

const JsonValue& Member(const JsonValue& object, const char* key) {
  static const JsonValue* const kNull = new JsonValue;
  const JsonValue* value = object.Find(key);
  EXPECT_NE(value, nullptr) << "missing member " << key;
  return value != nullptr ? *value : *kNull;
}

// Writes `records` as a trace file TmpDir()/`name` and returns its path.
std::string WriteTrace(const std::string& name,
                       const std::vector<alloc_trace::TraceRecord>& records) {
  alloc_trace::TraceHeader header{};
  std::memcpy(header.magic, alloc_trace::kTraceMagic, sizeof header.magic);
  header.version = alloc_trace::kTraceVersion;
  header.record_bytes = sizeof(alloc_trace::TraceRecord);
  header.records = records.size();
  const std::string path = TmpDir() + "/" + name;
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(&header), sizeof header);
  file.write(reinterpret_cast<const char*>(records.data()),
             static_cast<std::streamsize>(records.size() *
                                          sizeof(alloc_trace::TraceRecord)));
  return path;
}

TEST(ShootoutTest, QuickRunWritesConsistentJsonMarkdownAndCharts) {
  const std::string out = TmpDir() + "/report";
  const Outcome run = RunShootout(absl::StrCat(
      "--quick --size_factor=0.02 --workloads=rt_64 --allocators=glibc,tlsf "
      "--rounds=2 --out=",
      out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("rt_64"));
  EXPECT_THAT(run.err, HasSubstr("[   4/   4]"));  // the progress line

  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(Member(*json, "format").string, "tessera-shootout-1");
  EXPECT_EQ(Member(*json, "rounds").number, 2);
  EXPECT_THAT(Member(Member(*json, "peer_proofs"), "glibc").string,
              StartsWith("glibc"));
  const JsonValue& workloads = Member(*json, "workloads");
  ASSERT_EQ(workloads.array.size(), 1u);
  EXPECT_EQ(Member(workloads.array[0], "name").string, "rt_64");
  const JsonValue& results = Member(workloads.array[0], "results");
  ASSERT_EQ(results.array.size(), 2u);
  double medians[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const JsonValue& result = results.array[i];
    EXPECT_EQ(Member(result, "subject").string, i == 0 ? "glibc" : "tlsf");
    EXPECT_TRUE(Member(result, "ok").boolean);
    const JsonValue& time = Member(Member(result, "figures"), "ns_per_op");
    const JsonValue& rounds = Member(time, "rounds");
    ASSERT_EQ(rounds.array.size(), 2u);
    medians[i] = Member(time, "median").number;
    EXPECT_GT(medians[i], 0);
    // JSON keeps 10 significant digits.
    EXPECT_NEAR(medians[i],
                (rounds.array[0].number + rounds.array[1].number) / 2,
                1e-8 * medians[i]);
    EXPECT_LE(Member(time, "min").number, medians[i]);
    EXPECT_GE(Member(time, "max").number, medians[i]);
  }
  const JsonValue& tlsf_time =
      Member(Member(results.array[1], "figures"), "ns_per_op");
  EXPECT_NEAR(Member(tlsf_time, "ratio_to_glibc").number,
              medians[1] / medians[0], 1e-3 * medians[1] / medians[0]);

  const std::string md = ReadFile(out + "/report.md");
  EXPECT_THAT(md, HasSubstr("## Recommendation"));
  EXPECT_THAT(md, HasSubstr("**Round trip 64 B**: use **"));
  EXPECT_THAT(md, HasSubstr("![rt_64](rt_64.svg)"));
  EXPECT_THAT(md, HasSubstr("| tlsf |"));
  const std::string svg = ReadFile(out + "/rt_64.svg");
  EXPECT_THAT(svg, StartsWith("<svg"));
  EXPECT_THAT(svg, HasSubstr(">tlsf</text>"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

TEST(ShootoutTest, TensorWorkloadsAreMeasuredAgainstNumpyWithRatios) {
  const std::string out = TmpDir() + "/tensor";
  const Outcome run = RunShootout(absl::StrCat(
      "--quick --size_factor=0.05 --workloads=tensor_add_1e3,tensor_sum_1e5 "
      "--allocators=tlsf,buffer_cache --rounds=2 --out=",
      out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("numpy ns/op"));
  EXPECT_THAT(run.out, HasSubstr("tensor_sum_1e5"));
  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_THAT(Member(Member(*json, "peer_proofs"), "numpy").string,
              StartsWith("numpy 1."));
  const JsonValue& workloads = Member(*json, "workloads");
  ASSERT_EQ(workloads.array.size(), 2u);
  for (const JsonValue& workload : workloads.array) {
    SCOPED_TRACE(Member(workload, "name").string);
    EXPECT_EQ(Member(workload, "baseline").string, "numpy");
    const JsonValue& results = Member(workload, "results");
    // tlsf, buffer_cache, numpy (catalog order); glibc runs no tensors.
    ASSERT_EQ(results.array.size(), 3u);
    EXPECT_EQ(Member(results.array[2], "subject").string, "numpy");
    const double numpy =
        Member(Member(Member(results.array[2], "figures"), "ns_per_op"),
               "median")
            .number;
    EXPECT_GT(numpy, 0);
    const JsonValue& tlsf =
        Member(Member(results.array[0], "figures"), "ns_per_op");
    EXPECT_EQ(Member(results.array[0], "subject").string, "tlsf");
    EXPECT_NEAR(Member(tlsf, "ratio_to_numpy").number,
                Member(tlsf, "median").number / numpy,
                1e-3 * Member(tlsf, "median").number / numpy);
  }
  const std::string md = ReadFile(out + "/report.md");
  EXPECT_THAT(md, HasSubstr("![Tessera tensors vs NumPy](tensor_vs_numpy.svg)"));
  EXPECT_THAT(md, HasSubstr("| allocator | median | min | max | spread | vs "
                            "numpy |"));
  EXPECT_THAT(ReadFile(out + "/tensor_vs_numpy.svg"), HasSubstr("sum_1e5"));
}

TEST(ShootoutTest, MissingNumpySkipsTheComparisonWithAMessage) {
  const std::string out = TmpDir() + "/no_numpy";
  const Outcome run = RunShootout(absl::StrCat(
      "--quick --size_factor=0.05 --workloads=tensor_add_1e3 "
      "--allocators=malloc --rounds=1 --python=/nonexistent/python3 --out=",
      out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("NumPy comparison skipped"));
  EXPECT_THAT(run.err, HasSubstr("/nonexistent/python3"));
  EXPECT_THAT(run.out, HasSubstr("skipped"));
  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const JsonValue& workload = Member(*json, "workloads").array.at(0);
  EXPECT_THAT(Member(workload, "baseline_skipped").string,
              HasSubstr("python3-numpy"));
  const JsonValue& results = Member(workload, "results");
  ASSERT_EQ(results.array.size(), 1u);  // Tessera's side still measured
  EXPECT_TRUE(Member(results.array[0], "ok").boolean);

  // An interpreter that runs but cannot import NumPy (here: not Python).
  const Outcome not_python = RunShootout(
      "--quick --size_factor=0.05 --workloads=tensor_add_1e3 "
      "--allocators=malloc --rounds=1 --python=/bin/false");
  EXPECT_EQ(not_python.exit_code, 0) << not_python.err;
  EXPECT_THAT(not_python.err, HasSubstr("NumPy comparison skipped"));
}

TEST(ShootoutTest, NumpyAskedForByNameButMissingExitsNonZero) {
  const Outcome run = RunShootout(
      "--workloads=tensor_add_1e3 --allocators=numpy "
      "--python=/nonexistent/python3");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("NumPy comparison skipped"));
}

TEST(ShootoutTest, UnknownTensorWorkloadExitsNonZeroNamingIt) {
  const Outcome run = RunShootout("--workloads=tensor_add_1e9");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown workload 'tensor_add_1e9'"));
  EXPECT_THAT(run.err, HasSubstr("tensor_add_1e7"));
}

TEST(ShootoutTest, W4OnTlsfDrawsTheArenaMapAndReportsFragmentation) {
  const std::string out = TmpDir() + "/arena";
  const Outcome run = RunShootout(absl::StrCat(
      "--quick --size_factor=0.1 --workloads=w4 --allocators=tlsf "
      "--rounds=1 --out=",
      out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string svg = ReadFile(out + "/tlsf_arena_map.svg");
  EXPECT_THAT(svg, StartsWith("<svg"));
  EXPECT_THAT(svg, HasSubstr(">live block</text>"));
  EXPECT_THAT(svg, HasSubstr(">metadata nodes</text>"));
  EXPECT_THAT(svg, HasSubstr("fragmentation 1 - largest/free = "));
  EXPECT_THAT(ReadFile(out + "/report.md"),
              HasSubstr("![TLSF arena map](tlsf_arena_map.svg)"));
  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const JsonValue& results =
      Member(Member(*json, "workloads").array.at(0), "results");
  ASSERT_EQ(results.array.size(), 2u);  // glibc, tlsf
  const JsonValue& figures = Member(results.array[1], "figures");
  const double holes =
      Member(Member(figures, "arena_hole_share"), "median").number;
  EXPECT_GE(holes, 0);
  EXPECT_LT(holes, 1);
  EXPECT_GT(Member(Member(figures, "arena_metadata_bytes"), "median").number,
            0);
}

// A trace written here (no recorder: it runs in sanitizer builds too) with
// three threads whose blocks are freed on other threads.
TEST(ShootoutTest, ThreadedReplayHandsBlocksOverBetweenThreads) {
  using alloc_trace::TraceOp;
  using alloc_trace::TraceRecord;
  std::vector<TraceRecord> records;
  auto add = [&](TraceOp op, uint32_t thread, uint64_t size, uint64_t ptr,
                 uint64_t old_ptr = 0) {
    TraceRecord r{};
    r.op = static_cast<uint8_t>(op);
    r.thread = thread;
    r.size = size;
    r.ptr = ptr;
    r.old_ptr = old_ptr;
    records.push_back(r);
  };
  // Thread 1 allocates, thread 2 grows and frees; thread 3 churns its own.
  for (uint64_t i = 0; i < 300; ++i) {
    const uint64_t a = 0x100000 + i * 0x1000;
    add(TraceOp::kMalloc, 1, 16 + i % 200, a);
    add(TraceOp::kMalloc, 3, 32, 0x5000000 + i * 0x100);
    add(TraceOp::kRealloc, 2, 400 + i, a + 0x800000, a);
    add(TraceOp::kFree, 3, 0, 0x5000000 + i * 0x100);
    if (i % 3 == 0) add(TraceOp::kFree, 2, 0, a + 0x800000);
  }
  const std::string path = WriteTrace("threads.trace", records);
  const std::string out = TmpDir() + "/threads";
  const Outcome run = RunShootout(absl::StrCat(
      "--trace=", path,
      " --workloads=trace_threads --allocators=glibc,tlsf,size_class,"
      "tlsf_locked --rounds=1 --out=",
      out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("3 threads (300 blocks freed on another "
                                 "thread)"));
  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const JsonValue& results =
      Member(Member(*json, "workloads").array.at(0), "results");
  ASSERT_EQ(results.array.size(), 4u);
  for (const JsonValue& result : results.array) {
    SCOPED_TRACE(Member(result, "subject").string);
    ASSERT_TRUE(Member(result, "ok").boolean) << Member(result, "error").string;
    const JsonValue& f = Member(result, "figures");
    EXPECT_EQ(Member(Member(f, "threads"), "median").number, 3);
    EXPECT_EQ(Member(Member(f, "allocations"), "median").number, 600);
    EXPECT_EQ(Member(Member(f, "reallocs"), "median").number, 300);
    // 300 + 100 recorded frees, 200 reallocated blocks freed at the end.
    EXPECT_EQ(Member(Member(f, "frees"), "median").number, 600);
    EXPECT_EQ(Member(Member(f, "cross_thread_frees"), "median").number, 300);
  }
}

// The replay's memory figures are the validation pass's: it writes every
// block's every page, as the program did, after malloc gave back what it held, and its
// bookkeeping (a map node a live block) is not the subject's. So a 32 MiB
// block counts whole on every subject (the measured pass, one byte a block,
// counted a page of it on glibc), and 100,000 live 48-byte blocks cost their
// cells, not also the validator's 4.8 MB of nodes.
TEST(ShootoutTest, ReplayMemoryIsTheWrittenPassWithoutTheValidatorsBookkeeping) {
  using alloc_trace::TraceOp;
  using alloc_trace::TraceRecord;
  std::vector<TraceRecord> records;
  auto add = [&](TraceOp op, uint64_t size, uint64_t ptr) {
    TraceRecord r{};
    r.op = static_cast<uint8_t>(op);
    r.thread = 1;
    r.size = size;
    r.ptr = ptr;
    records.push_back(r);
  };
  constexpr uint64_t kBig = uint64_t{32} << 20;
  constexpr int kSmall = 100000;
  constexpr uint64_t kSmallBytes = 48;
  add(TraceOp::kMalloc, kBig, 0x10000000);
  for (int i = 0; i < kSmall; ++i) {
    add(TraceOp::kMalloc, kSmallBytes, 0x40000000 + uint64_t(i) * 64);
  }
  add(TraceOp::kFree, 0, 0x10000000);
  for (int i = 0; i < kSmall; ++i) {
    add(TraceOp::kFree, 0, 0x40000000 + uint64_t(i) * 64);
  }
  const std::string path = WriteTrace("big.trace", records);
  const std::string out = TmpDir() + "/big";
  const Outcome run = RunShootout(absl::StrCat(
      "--trace=", path, " --allocators=glibc,tessera --rounds=1 --out=", out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  absl::StatusOr<JsonValue> json = ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const JsonValue& results =
      Member(Member(*json, "workloads").array.at(0), "results");
  ASSERT_EQ(results.array.size(), 2u);
  const double small_live = double(kSmall * kSmallBytes);
  for (const JsonValue& result : results.array) {
    SCOPED_TRACE(Member(result, "subject").string);
    ASSERT_TRUE(Member(result, "ok").boolean) << Member(result, "error").string;
    const JsonValue& f = Member(result, "figures");
    EXPECT_EQ(Member(Member(f, "peak_live_bytes"), "median").number,
              double(kBig) + small_live);
    const double growth =
        Member(Member(f, "peak_rss_growth_bytes"), "median").number;
    EXPECT_GE(growth, double(kBig) + small_live * 0.9);
#if !defined(TESSERA_SANITIZER_BUILD)
    // Cells of 48 bytes (glibc's chunks are 64) and a huge page's rounding,
    // but not the nodes as well. (Under ASan and TSan the child's malloc is
    // the sanitizer's, whose redzones cost more than the nodes.)
    EXPECT_LT(growth, double(kBig) + small_live * 1.75);
#endif
  }
}

TEST(ShootoutTest, UnknownWorkloadExitsNonZeroNamingItAndTheKnownOnes) {
  const Outcome run = RunShootout("--workloads=rt_64,nonesuch");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown workload 'nonesuch'"));
  EXPECT_THAT(run.err, HasSubstr("w4"));
}

TEST(ShootoutTest, UnknownAllocatorExitsNonZeroNamingIt) {
  const Outcome run = RunShootout("--allocators=glibc,hoard");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown allocator 'hoard'"));
  EXPECT_THAT(run.err, HasSubstr("tlsf"));
}

TEST(ShootoutTest, MissingPeerAskedForByNameExitsNonZeroNamingThePackage) {
  const Outcome run = RunShootout(
      "--workloads=rt_64 --allocators=jemalloc "
      "--peer_libs=jemalloc=/nonexistent/libjemalloc.so.2");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("peer jemalloc is missing"));
  EXPECT_THAT(run.err, HasSubstr("libjemalloc2"));
}

TEST(ShootoutTest, BadRoundsAndPositionalArgumentsAreRejected) {
  EXPECT_EQ(RunShootout("--rounds=-1").exit_code, 2);
  EXPECT_EQ(RunShootout("--size_factor=0").exit_code, 2);
  const Outcome run = RunShootout("rt_64");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unexpected argument 'rt_64'"));
}

TEST(ShootoutTest, ChildRefusesToReportForAPeerThatIsNotLoaded) {
  const Outcome run =
      RunShootout("--subject=jemalloc --peer=jemalloc --workloads=rt_64");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.out, HasSubstr("refusing to report for peer 'jemalloc'"));
}

TEST(ShootoutTest, ChildRejectsATesseraSubjectOnAPeer) {
  const Outcome run =
      RunShootout("--subject=tlsf --peer=mimalloc --workloads=rt_64");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_THAT(run.out, HasSubstr("runs on --peer=glibc"));
}

#if !defined(TESSERA_SANITIZER_BUILD)
// Sanitizer runtimes must come first in the library list, so a preloaded
// peer cannot run under them; the refusal cases above still do.
TEST(ShootoutTest, ChildProvesAPreloadedPeerBeforeReporting) {
  const Outcome run = RunShootout(
      "--subject=mimalloc --peer=mimalloc --workloads=pool --quick",
      "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  absl::StatusOr<JsonValue> json = ParseJson(run.out);
  ASSERT_TRUE(json.ok()) << json.status() << run.out;
  EXPECT_THAT(Member(*json, "active").string, HasSubstr("mi_version"));
  EXPECT_THAT(Member(*json, "active").string, HasSubstr("libmimalloc"));
  EXPECT_GT(Member(Member(*json, "metrics"), "ns_per_op").number, 0);
}

TEST(ShootoutTest, ChildProvesPreloadedTesseraMallocAndRunsTheThreadedWorkloads) {
  for (const char* workload : {"xthread", "larson", "w4"}) {
    const Outcome run = RunShootout(
        absl::StrCat("--subject=tessera_preload --peer=tessera_preload "
                     "--workloads=",
                     workload, " --quick --size_factor=0.05"),
        absl::StrCat("LD_PRELOAD=", TesseraMallocLibrary()));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    absl::StatusOr<JsonValue> json = ParseJson(run.out);
    ASSERT_TRUE(json.ok()) << json.status() << run.out;
    EXPECT_THAT(Member(*json, "active").string,
                HasSubstr("tessera_malloc_version"));
    EXPECT_THAT(Member(*json, "active").string, HasSubstr("libtessera_malloc"));
    EXPECT_GT(Member(Member(*json, "metrics"), "ns_per_op").number, 0);
  }
}
#endif

TEST(ShootoutTest, TesseraMallocInProcessRunsTheThreadedWorkloads) {
  for (const char* workload : {"xthread", "larson", "two_thread"}) {
    const Outcome run = RunShootout(absl::StrCat(
        "--subject=tessera --peer=glibc --quick --size_factor=0.05 "
        "--workloads=",
        workload));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    absl::StatusOr<JsonValue> json = ParseJson(run.out);
    ASSERT_TRUE(json.ok()) << json.status() << run.out;
    EXPECT_GT(Member(Member(*json, "metrics"), "ns_per_op").number, 0);
  }
}

}  // namespace
}  // namespace shootout
}  // namespace tessera
