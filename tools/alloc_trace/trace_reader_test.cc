// Copyright 2026 The Tessera Authors.

#include "tools/alloc_trace/trace_reader.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace alloc_trace {
namespace {

using ::testing::HasSubstr;

TraceRecord Rec(TraceOp op, uint64_t size, uint64_t ptr, uint64_t old = 0,
                uint32_t thread = 1, uint8_t align_log2 = 0) {
  TraceRecord r{};
  r.op = static_cast<uint8_t>(op);
  r.align_log2 = align_log2;
  r.thread = thread;
  r.size = size;
  r.ptr = ptr;
  r.old_ptr = old;
  return r;
}

std::string Bytes(const std::vector<TraceRecord>& records,
                  uint32_t version = kTraceVersion, int64_t count = -1) {
  TraceHeader h{};
  std::memcpy(h.magic, kTraceMagic, sizeof h.magic);
  h.version = version;
  h.record_bytes = sizeof(TraceRecord);
  h.records = count >= 0 ? uint64_t(count) : records.size();
  h.pid = 42;
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(reinterpret_cast<const char*>(records.data()),
             records.size() * sizeof(TraceRecord));
  return out;
}

TEST(TraceReaderTest, MatchesFreesToAllocationsAndReusesSlots) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({
      Rec(TraceOp::kMalloc, 10, 0x1000),
      Rec(TraceOp::kCalloc, 20, 0x2000, 0, 2),
      Rec(TraceOp::kFree, 0, 0x1000),
      Rec(TraceOp::kPosixMemalign, 30, 0x3000, 0, 1, 6),
      Rec(TraceOp::kRealloc, 40, 0x4000, 0x2000),
      Rec(TraceOp::kFree, 0, 0x9999),  // from before recording
      Rec(TraceOp::kMalloc, 0, 0),     // failed
  }));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->calls[int(TraceOp::kMalloc)], 1u);
  EXPECT_EQ(t->calls[int(TraceOp::kCalloc)], 1u);
  EXPECT_EQ(t->calls[int(TraceOp::kRealloc)], 1u);
  EXPECT_EQ(t->calls[int(TraceOp::kFree)], 1u);
  EXPECT_EQ(t->unmatched_frees, 1u);
  EXPECT_EQ(t->failed_allocations, 1u);
  EXPECT_EQ(t->threads, 2u);
  EXPECT_EQ(t->slots, 2u);  // 0x3000 reuses 0x1000's slot
  EXPECT_EQ(t->peak_live_bytes, 70u);  // 30 + 40 after the realloc
  EXPECT_EQ(t->live_at_exit, 2u);
  ASSERT_EQ(t->ops.size(), 7u);  // 5 recorded + 2 frees at exit
  EXPECT_EQ(t->ops[2].kind, ReplayOp::Kind::kFree);
  EXPECT_EQ(t->ops[3].kind, ReplayOp::Kind::kAlloc);
  EXPECT_EQ(t->ops[3].slot, t->ops[0].slot);
  EXPECT_EQ(t->ops[3].align_log2, 6);
  EXPECT_EQ(t->ops[4].kind, ReplayOp::Kind::kRealloc);
  EXPECT_EQ(t->ops[4].old_slot, t->ops[1].slot);
  EXPECT_EQ(t->ops[4].size, 40u);
}

TEST(TraceReaderTest, KeepsEachCallsThreadAndCountsCrossThreadFrees) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({
      Rec(TraceOp::kMalloc, 10, 0x1000, 0, 500),
      Rec(TraceOp::kMalloc, 20, 0x2000, 0, 700),
      Rec(TraceOp::kFree, 0, 0x1000, 0, 700),          // handed over
      Rec(TraceOp::kRealloc, 30, 0x3000, 0x2000, 500),  // handed over
      Rec(TraceOp::kMalloc, 40, 0x4000, 0, 700),        // live at exit
  }));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->threads, 2u);
  EXPECT_EQ(t->thread_ids, (std::vector<uint32_t>{500, 700}));
  EXPECT_EQ(t->cross_thread_frees, 2u);
  ASSERT_EQ(t->ops.size(), 7u);  // 5 recorded + 2 frees at exit
  const uint32_t want[5] = {0, 1, 1, 0, 1};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t->ops[i].thread, want[i]) << i;
  // Frees at exit run on the thread that allocated the block.
  for (int i = 5; i < 7; ++i) {
    const ReplayOp& op = t->ops[i];
    EXPECT_EQ(op.kind, ReplayOp::Kind::kFree);
    EXPECT_EQ(op.thread, op.slot == t->ops[3].slot ? 0u : 1u);
  }
}

TEST(TraceReaderTest, ReallocToAnAddressStillLiveFreesTheStaleBlock) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({
      Rec(TraceOp::kMalloc, 10, 0x1000),
      Rec(TraceOp::kMalloc, 20, 0x2000),
      Rec(TraceOp::kRealloc, 30, 0x2000, 0x1000),  // 0x2000's free unseen
  }));
  ASSERT_TRUE(t.ok()) << t.status();
  int allocs = 0, frees = 0;
  for (const ReplayOp& op : t->ops) {
    allocs += op.kind != ReplayOp::Kind::kFree;
    frees += op.kind == ReplayOp::Kind::kFree;
  }
  // Every block the replay makes is freed: 2 mallocs + 1 realloc result.
  EXPECT_EQ(allocs, 3);
  EXPECT_EQ(frees, 2);  // the stale 0x2000 block, and the realloc's at exit
  EXPECT_EQ(t->live_at_exit, 1u);
}

TEST(TraceReaderTest, EmptyFinishedTraceIsValid) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({}));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->ops.empty());
}

TEST(TraceReaderTest, ShorterThanHeaderIsTruncated) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({}).substr(0, 10));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("truncated"));
}

TEST(TraceReaderTest, CutMidRecordIsTruncated) {
  const std::string bytes = Bytes({Rec(TraceOp::kMalloc, 1, 0x10)});
  absl::StatusOr<Trace> t = ParseTrace(bytes.substr(0, bytes.size() - 5));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("mid-record"));
}

TEST(TraceReaderTest, FewerRecordsThanTheHeaderSaysIsTruncated) {
  absl::StatusOr<Trace> t =
      ParseTrace(Bytes({Rec(TraceOp::kMalloc, 1, 0x10)}, kTraceVersion, 3));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("header says 3 records"));
}

TEST(TraceReaderTest, MissingCountMeansTheProgramDidNotExit) {
  absl::StatusOr<Trace> t =
      ParseTrace(Bytes({Rec(TraceOp::kMalloc, 1, 0x10)}, kTraceVersion, 0));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("unfinished"));
}

TEST(TraceReaderTest, NewerVersionIsRefusedNamingBothVersions) {
  absl::StatusOr<Trace> t = ParseTrace(Bytes({}, kTraceVersion + 1));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(t.status().message(), HasSubstr("version 2 is newer"));
}

TEST(TraceReaderTest, BadMagicIsRefused) {
  std::string bytes = Bytes({});
  bytes[0] = 'X';
  EXPECT_EQ(ParseTrace(bytes).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TraceReaderTest, UnknownOperationIsRefused) {
  TraceRecord r = Rec(TraceOp::kMalloc, 1, 0x10);
  r.op = 99;
  absl::StatusOr<Trace> t = ParseTrace(Bytes({r}));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("unknown operation 99"));
}

TEST(TraceReaderTest, UnreadableFileNamesThePath) {
  absl::StatusOr<Trace> t = ReadTrace("/nonexistent/dir/x.trace");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(t.status().message(), HasSubstr("/nonexistent/dir/x.trace"));
}

void IgnoreSignal(int) {}

// A trace read from a pipe (where it cannot be mapped) by a thread that a
// signal interrupts, with a handler installed without SA_RESTART as a
// program's may be: read() fails with EINTR, which is no error in the data.
TEST(TraceReaderTest, ASignalDuringAPipeReadIsNotAnError) {
  const std::string bytes = Bytes({Rec(TraceOp::kMalloc, 10, 0x1000),
                                   Rec(TraceOp::kFree, 0, 0x1000)});
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string fifo = std::string(dir != nullptr ? dir : "/tmp") +
                           "/trace_fifo_" + std::to_string(getpid());
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  struct sigaction handler {}, previous {};
  handler.sa_handler = IgnoreSignal;
  sigemptyset(&handler.sa_mask);
  handler.sa_flags = 0;  // no SA_RESTART: a blocked read() returns EINTR
  ASSERT_EQ(sigaction(SIGUSR1, &handler, &previous), 0);
  // A reader that gave up early must fail the test, not kill it: the
  // writer's last write then gets EPIPE instead of SIGPIPE.
  void (*previous_pipe)(int) = signal(SIGPIPE, SIG_IGN);
  const pthread_t reader = pthread_self();
  std::thread writer([&] {
    // Opens once the reader has (a FIFO's open waits for both ends).
    const int fd = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    const size_t first = 10;  // the reader takes these, then waits for more
    (void)!write(fd, bytes.data(), first);
    for (int i = 0; i < 5; ++i) {
      usleep(20000);
      pthread_kill(reader, SIGUSR1);
    }
    (void)!write(fd, bytes.data() + first, bytes.size() - first);
    close(fd);
  });
  absl::StatusOr<Trace> t = ReadTrace(fifo);
  writer.join();
  sigaction(SIGUSR1, &previous, nullptr);
  signal(SIGPIPE, previous_pipe);
  unlink(fifo.c_str());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->calls[int(TraceOp::kMalloc)], 1u);
  EXPECT_EQ(t->calls[int(TraceOp::kFree)], 1u);
}

// A trace file that another process truncates and rewrites while it is
// read: every read either parses the whole trace or fails with a clear
// status, never a crash (a file mapping raised SIGBUS on the bytes past the
// new end).
TEST(TraceReaderTest, AFileTruncatedWhileReadIsAnErrorNotACrash) {
  std::vector<TraceRecord> records;
  for (uint64_t i = 0; i < 50000; ++i) {
    records.push_back(Rec(TraceOp::kMalloc, 64, 0x1000 + 64 * i));
    records.push_back(Rec(TraceOp::kFree, 0, 0x1000 + 64 * i));
  }
  const std::string bytes = Bytes(records);
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") +
                           "/trace_shrinking_" + std::to_string(getpid());
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()),
            static_cast<ssize_t>(bytes.size()));
  std::atomic<bool> done{false};
  std::thread truncator([&] {
    // Whole for a few milliseconds (a read that starts then has the whole
    // file's size, and is parsing it when the cut comes), cut for a moment.
    while (!done.load()) {
      (void)!pwrite(fd, bytes.data(), bytes.size(), 0);
      usleep(2000);
      (void)!ftruncate(fd, 4096);
      usleep(200);
    }
  });
  int whole = 0, failed = 0;
  for (int i = 0; i < 20; ++i) {
    absl::StatusOr<Trace> t = ReadTrace(path);
    if (t.ok()) {
      EXPECT_EQ(t->calls[int(TraceOp::kMalloc)], records.size() / 2);
      ++whole;
    } else {
      EXPECT_THAT(t.status().message(), HasSubstr(path));
      ++failed;
    }
  }
  done.store(true);
  truncator.join();
  close(fd);
  unlink(path.c_str());
  EXPECT_EQ(whole + failed, 20);
  std::printf("%d whole, %d failed\n", whole, failed);
}

}  // namespace
}  // namespace alloc_trace
}  // namespace tessera
