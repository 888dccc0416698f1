// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: trace_reader.h
// -----------------------------------------------------------------------------
//
// Reads a trace written by liballoc_trace.so (trace_format.h) and compiles it
// for replay, keeping the recorded global order and each call's thread: recorded addresses become dense slot numbers (a slot is reused
// once its block is freed, so there are as many slots as blocks were ever
// live at once), frees of blocks allocated before recording began are
// dropped and counted, and blocks still live at exit get a free at the end
// so that a replay leaves the allocator empty (on the thread that allocated
// the block).
//
// Bad input gets a Status naming the problem, never a partial trace:
// unreadable file (NotFound / PermissionDenied naming the path), shorter than
// a header or cut mid-record or holding fewer records than its header says
// (DataLoss "truncated"), a program that did not exit normally (DataLoss
// "unfinished"), wrong magic (InvalidArgument), a newer format version
// (FailedPrecondition naming both versions).

#ifndef TESSERA_TOOLS_ALLOC_TRACE_TRACE_READER_H_
#define TESSERA_TOOLS_ALLOC_TRACE_TRACE_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/alloc_trace/trace_format.h"

namespace tessera {
namespace alloc_trace {

struct ReplayOp {
  enum class Kind : uint8_t { kAlloc, kFree, kRealloc };
  Kind kind;
  uint8_t align_log2;  // alloc: alignment asked for (0: default)
  uint32_t slot;       // alloc/realloc: the new block; free: the freed one
  uint32_t old_slot;   // realloc: the block resized
  uint64_t size;       // alloc/realloc: bytes asked for
  uint32_t thread;     // dense index of the recorded thread (0 = first seen)
};

struct Trace {
  uint32_t version = 0;
  uint32_t pid = 0;
  std::vector<ReplayOp> ops;
  // Successful calls per TraceOp, as recorded (indexed by the op's value).
  uint64_t calls[kNumTraceOps] = {};
  uint64_t threads = 0;            // distinct thread ids
  std::vector<uint32_t> thread_ids;  // kernel tid of each dense thread index
  // Frees (and reallocs) of a block allocated on another thread: a threaded
  // replay hands these blocks over between its threads.
  uint64_t cross_thread_frees = 0;
  uint64_t unmatched_frees = 0;    // frees of blocks allocated before recording
  uint64_t failed_allocations = 0; // calls that returned nullptr
  uint64_t live_at_exit = 0;       // blocks never freed (freed at replay's end)
  uint32_t slots = 0;              // most blocks live at once
  uint64_t peak_live_bytes = 0;    // most requested bytes live at once
};

// Compiles a trace from its bytes (for tests) or from a file.
absl::StatusOr<Trace> ParseTrace(absl::string_view bytes);
absl::StatusOr<Trace> ReadTrace(const std::string& path);

}  // namespace alloc_trace
}  // namespace tessera

#endif  // TESSERA_TOOLS_ALLOC_TRACE_TRACE_READER_H_
