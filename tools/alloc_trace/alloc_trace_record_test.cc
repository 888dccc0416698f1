// Copyright 2026 The Tessera Authors.
//
// Records trace_fixture (a program with known allocation counts) through
// liballoc_trace.so, checks that the trace holds exactly the program's calls,
// then replays it with the shootout and checks that the replay made the same
// number of calls on every allocator. Also: bad traces make the shootout
// exit non-zero with a message.

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/shootout/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/alloc_trace/trace_reader.h"

namespace tessera {
namespace alloc_trace {
namespace {

using ::testing::HasSubstr;

std::string TmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "tessera", "/", path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Records the fixture once for all tests.
const std::string& RecordedTrace() {
  static const std::string* path = [] {
    auto* p = new std::string(TmpDir() + "/fixture.trace");
    const int rc = Shell(absl::StrCat(
        "ALLOC_TRACE_FILE=", *p, " LD_PRELOAD=",
        Runfile("tools/alloc_trace/liballoc_trace.so"), " ",
        Runfile("tools/alloc_trace/trace_fixture")));
    EXPECT_EQ(rc, 0);
    return p;
  }();
  return *path;
}

int CountAllocs(const Trace& t, uint64_t lo, uint64_t hi, int align_log2,
                ReplayOp::Kind kind = ReplayOp::Kind::kAlloc) {
  int n = 0;
  for (const ReplayOp& op : t.ops) {
    if (op.kind == kind && op.size >= lo && op.size <= hi &&
        (align_log2 < 0 || op.align_log2 == align_log2)) {
      ++n;
    }
  }
  return n;
}

TEST(AllocTraceRecordTest, TraceHoldsExactlyTheFixturesCalls) {
  absl::StatusOr<Trace> t = ReadTrace(RecordedTrace());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(CountAllocs(*t, 7001, 7100, 0), 100);               // malloc
  EXPECT_EQ(CountAllocs(*t, 9001, 9050, 0), 50);                // calloc
  EXPECT_EQ(CountAllocs(*t, 10001, 10001, 0), 1);
  EXPECT_EQ(CountAllocs(*t, 11001, 11020, -1, ReplayOp::Kind::kRealloc), 20);
  EXPECT_EQ(CountAllocs(*t, 12001, 12010, 6), 10);              // posix_memalign
  EXPECT_EQ(CountAllocs(*t, 13056, 13056 + 4 * 128, 7), 5);     // aligned_alloc
  EXPECT_EQ(CountAllocs(*t, 14001, 14003, 8), 3);               // memalign
  EXPECT_EQ(CountAllocs(*t, 15001, 15030, 0), 30);              // thread 2
  EXPECT_EQ(CountAllocs(*t, 16001, 16020, 0), 20);              // handed over
  EXPECT_GE(t->calls[int(TraceOp::kCalloc)], 50u);
  EXPECT_GE(t->calls[int(TraceOp::kRealloc)], 20u);
  EXPECT_GE(t->calls[int(TraceOp::kPosixMemalign)], 10u);
  EXPECT_GE(t->calls[int(TraceOp::kAlignedAlloc)], 5u);
  EXPECT_GE(t->calls[int(TraceOp::kMemalign)], 3u);
  // 100 + 50 + 1 + 10 + 5 + 3 + 30 + 20 blocks of the fixture, all freed.
  EXPECT_GE(t->calls[int(TraceOp::kFree)], 219u);
  EXPECT_GE(t->threads, 3u);
  EXPECT_GE(t->cross_thread_frees, 20u);
  // The 20 handed-over blocks are allocated on the first thread and freed
  // on another.
  std::vector<uint32_t> allocated_on(t->slots, 0);
  int handed_over = 0;
  for (const ReplayOp& op : t->ops) {
    if (op.kind == ReplayOp::Kind::kAlloc) {
      allocated_on[op.slot] = op.size >= 16001 && op.size <= 16020
                                  ? op.thread + 1
                                  : 0;
    } else if (op.kind == ReplayOp::Kind::kFree &&
               allocated_on[op.slot] != 0) {
      EXPECT_EQ(allocated_on[op.slot], 1u);  // the main thread
      handed_over += op.thread != 0;
    }
  }
  EXPECT_EQ(handed_over, 20);
}

TEST(AllocTraceRecordTest, RecordsTheProgramAWrapperScriptExecs) {
  // The shell owns the trace first, then exec's the fixture under the same
  // pid (as a pyenv shim exec's python): the fixture's calls must be there.
  const std::string path = TmpDir() + "/wrapped.trace";
  ASSERT_EQ(Shell(absl::StrCat(
                "ALLOC_TRACE_FILE=", path, " LD_PRELOAD=",
                Runfile("tools/alloc_trace/liballoc_trace.so"),
                " /bin/sh -c 'exec ",
                Runfile("tools/alloc_trace/trace_fixture"), "'")),
            0);
  absl::StatusOr<Trace> t = ReadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(CountAllocs(*t, 7001, 7100, 0), 100);
  EXPECT_EQ(CountAllocs(*t, 15001, 15030, 0), 30);
}

TEST(AllocTraceRecordTest, ShootoutReplaysEveryCallOnEveryAllocator) {
  absl::StatusOr<Trace> t = ReadTrace(RecordedTrace());
  ASSERT_TRUE(t.ok()) << t.status();
  uint64_t allocs = 0, reallocs = 0, frees = 0;
  for (const ReplayOp& op : t->ops) {
    allocs += op.kind == ReplayOp::Kind::kAlloc;
    reallocs += op.kind == ReplayOp::Kind::kRealloc;
    frees += op.kind == ReplayOp::Kind::kFree;
  }
  const std::string out = TmpDir() + "/replay";
  ASSERT_EQ(Shell(absl::StrCat(Runfile("bench/shootout/shootout"),
                               " --trace=", RecordedTrace(),
                               " --workloads=trace"
                               " --allocators=glibc,tlsf,size_class --rounds=1 "
                               "--out=", out, " >/dev/null 2>&1")),
            0);
  absl::StatusOr<shootout::JsonValue> json =
      shootout::ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const shootout::JsonValue& workloads = *json->Find("workloads");
  ASSERT_EQ(workloads.array.size(), 1u);
  EXPECT_EQ(workloads.array[0].Find("name")->string, "trace");
  const shootout::JsonValue& results = *workloads.array[0].Find("results");
  ASSERT_EQ(results.array.size(), 3u);
  for (const shootout::JsonValue& result : results.array) {
    SCOPED_TRACE(result.Find("subject")->string);
    ASSERT_TRUE(result.Find("ok")->boolean);
    const shootout::JsonValue& figures = *result.Find("figures");
    EXPECT_EQ(figures.Find("allocations")->Find("median")->number, allocs);
    EXPECT_EQ(figures.Find("reallocs")->Find("median")->number, reallocs);
    EXPECT_EQ(figures.Find("frees")->Find("median")->number, frees);
    EXPECT_EQ(figures.Find("peak_live_bytes")->Find("median")->number,
              t->peak_live_bytes);
  }
  EXPECT_THAT(ReadFile(out + "/report.md"), HasSubstr("**Trace replay**"));
}

TEST(AllocTraceRecordTest, ThreadedReplayRunsOneThreadPerRecordedThread) {
  absl::StatusOr<Trace> t = ReadTrace(RecordedTrace());
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_GE(t->threads, 3u);
  uint64_t allocs = 0, reallocs = 0, frees = 0;
  for (const ReplayOp& op : t->ops) {
    allocs += op.kind == ReplayOp::Kind::kAlloc;
    reallocs += op.kind == ReplayOp::Kind::kRealloc;
    frees += op.kind == ReplayOp::Kind::kFree;
  }
  // Default workloads for a multi-threaded trace: both replays. tlsf and
  // size_class are single-threaded and run behind a mutex.
  const std::string out = TmpDir() + "/threaded";
  ASSERT_EQ(Shell(absl::StrCat(Runfile("bench/shootout/shootout"),
                               " --trace=", RecordedTrace(),
                               " --allocators=glibc,tlsf,tlsf_locked,"
                               "size_class,aligned64 --rounds=1 --out=", out,
                               " >/dev/null 2>&1")),
            0);
  absl::StatusOr<shootout::JsonValue> json =
      shootout::ParseJson(ReadFile(out + "/results.json"));
  ASSERT_TRUE(json.ok()) << json.status();
  const shootout::JsonValue& workloads = *json->Find("workloads");
  ASSERT_EQ(workloads.array.size(), 2u);
  EXPECT_EQ(workloads.array[1].Find("name")->string, "trace_threads");
  const shootout::JsonValue& results = *workloads.array[1].Find("results");
  ASSERT_EQ(results.array.size(), 5u);
  for (const shootout::JsonValue& result : results.array) {
    SCOPED_TRACE(result.Find("subject")->string);
    ASSERT_TRUE(result.Find("ok")->boolean);
    const shootout::JsonValue& figures = *result.Find("figures");
    EXPECT_EQ(figures.Find("threads")->Find("median")->number, t->threads);
    EXPECT_EQ(figures.Find("allocations")->Find("median")->number, allocs);
    EXPECT_EQ(figures.Find("reallocs")->Find("median")->number, reallocs);
    EXPECT_EQ(figures.Find("frees")->Find("median")->number, frees);
    EXPECT_EQ(figures.Find("cross_thread_frees")->Find("median")->number,
              t->cross_thread_frees);
  }
  const std::string md = ReadFile(out + "/report.md");
  EXPECT_THAT(md, HasSubstr("| tlsf (locked) |"));
  EXPECT_THAT(md, HasSubstr("| tlsf_locked |"));
}

// Runs the shootout on a trace file made from `bytes`; returns its stderr.
std::string ReplayBadTrace(const std::string& name, const std::string& bytes,
                           int* exit_code) {
  const std::string path = TmpDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  const std::string err = TmpDir() + "/" + name + ".err";
  *exit_code = Shell(absl::StrCat(Runfile("bench/shootout/shootout"),
                                  " --trace=", path, " --allocators=glibc",
                                  " >/dev/null 2>", err));
  return ReadFile(err);
}

TEST(AllocTraceRecordTest, BadTracesExitNonZeroWithAMessage) {
  const std::string good = ReadFile(RecordedTrace());
  ASSERT_GT(good.size(), 64u);
  int rc = 0;
  EXPECT_THAT(ReplayBadTrace("cut.trace", good.substr(0, good.size() - 7), &rc),
              HasSubstr("truncated"));
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(ReplayBadTrace("short.trace", good.substr(0, 64 + 32 * 2), &rc),
              HasSubstr("truncated: the header says"));
  EXPECT_EQ(rc, 2);
  std::string newer = good;
  newer[8] = 9;  // version field
  EXPECT_THAT(ReplayBadTrace("newer.trace", newer, &rc),
              HasSubstr("version 9 is newer"));
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(ReplayBadTrace("junk.trace", "hello, world", &rc),
              HasSubstr("truncated"));
  EXPECT_EQ(rc, 2);
  std::string empty = good.substr(0, 32);
  std::memset(&empty[16], 0, 8);  // a finished trace with no records
  EXPECT_THAT(ReplayBadTrace("empty.trace", empty, &rc),
              HasSubstr("holds no allocations"));
  EXPECT_EQ(rc, 2);
  rc = Shell(absl::StrCat(Runfile("bench/shootout/shootout"),
                          " --trace=/nonexistent.trace 2>/dev/null"));
  EXPECT_EQ(rc, 2);
  // Unreadable: a directory opens but cannot be read.
  const std::string err = TmpDir() + "/dir.err";
  rc = Shell(absl::StrCat(Runfile("bench/shootout/shootout"), " --trace=",
                          TmpDir(), " >/dev/null 2>", err));
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(ReadFile(err), HasSubstr(TmpDir() + ": it is a directory"));
  // The threaded replay needs a trace too.
  rc = Shell(absl::StrCat(Runfile("bench/shootout/shootout"),
                          " --workloads=trace_threads >/dev/null 2>", err));
  EXPECT_EQ(rc, 2);
  EXPECT_THAT(ReadFile(err), HasSubstr("'trace_threads' needs --trace"));
}

}  // namespace
}  // namespace alloc_trace
}  // namespace tessera
