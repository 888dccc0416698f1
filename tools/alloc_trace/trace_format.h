// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: trace_format.h
// -----------------------------------------------------------------------------
//
// The binary allocation trace written by liballoc_trace.so (recorder.cc) and
// read by trace_reader.h. Little-endian, as written on x86-64:
//
//   [ TraceHeader (32 bytes) | TraceRecord (32 bytes) x records ]
//
// One record per call, in the order the calls took the recorder's lock (the
// global order across threads). `ptr` and `old_ptr` are addresses in the
// recorded process: they only identify blocks, so that frees can be matched
// to allocations and lifetimes recovered.
//
// The header's `records` is 0 while the program runs and is written when it
// exits (and rewritten for records that arrive after that), so a reader can
// tell a finished trace from one whose program was killed, and a file cut
// short from a complete one.

#ifndef TESSERA_TOOLS_ALLOC_TRACE_TRACE_FORMAT_H_
#define TESSERA_TOOLS_ALLOC_TRACE_TRACE_FORMAT_H_

#include <cstdint>

namespace tessera {
namespace alloc_trace {

inline constexpr char kTraceMagic[8] = {'T', 'E', 'S', 'S', 'T', 'R', 'C', '\0'};
// Bump when the layout changes; readers refuse versions above theirs.
inline constexpr uint32_t kTraceVersion = 1;

struct TraceHeader {
  char magic[8];            // kTraceMagic
  uint32_t version;         // kTraceVersion of the writer
  uint32_t record_bytes;    // sizeof(TraceRecord) of the writer
  uint64_t records;         // 0 until the program exits
  uint32_t pid;             // of the recorded process
  uint32_t reserved;
};
static_assert(sizeof(TraceHeader) == 32, "the header is 32 bytes on disk");

enum class TraceOp : uint8_t {
  kMalloc = 1,         // size
  kCalloc = 2,         // size = count * element size
  kRealloc = 3,        // old_ptr -> ptr, size = new size
  kFree = 4,           // ptr
  kPosixMemalign = 5,  // size, alignment
  kAlignedAlloc = 6,   // size, alignment
  kMemalign = 7,       // size, alignment
};
inline constexpr int kNumTraceOps = 8;  // index 0 unused

struct TraceRecord {
  uint8_t op;          // TraceOp
  uint8_t align_log2;  // log2(alignment) for the aligned family, else 0
  uint16_t reserved;
  uint32_t thread;     // kernel thread id
  uint64_t size;
  uint64_t ptr;        // result (allocation) or argument (free)
  uint64_t old_ptr;    // realloc's argument
};
static_assert(sizeof(TraceRecord) == 32, "records are 32 bytes on disk");

}  // namespace alloc_trace
}  // namespace tessera

#endif  // TESSERA_TOOLS_ALLOC_TRACE_TRACE_FORMAT_H_
