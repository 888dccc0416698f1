// Copyright 2026 The Tessera Authors.

#include "tools/alloc_trace/trace_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace alloc_trace {

absl::StatusOr<Trace> ParseTrace(absl::string_view bytes) {
  TraceHeader header;
  if (bytes.size() < sizeof header) {
    return absl::DataLossError(absl::StrCat(
        "trace truncated: ", bytes.size(), " bytes, shorter than the ",
        sizeof header, "-byte header"));
  }
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.magic, kTraceMagic, sizeof kTraceMagic) != 0) {
    return absl::InvalidArgumentError(
        "not an alloc_trace file (bad magic; expected TESSTRC)");
  }
  if (header.version > kTraceVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "trace format version ", header.version,
        " is newer than this reader's version ", kTraceVersion,
        "; rebuild the replayer from a newer Tessera"));
  }
  if (header.version == 0 || header.record_bytes != sizeof(TraceRecord)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad trace header: version ", header.version, ", record size ",
        header.record_bytes, " (expected ", sizeof(TraceRecord), ")"));
  }
  const size_t body = bytes.size() - sizeof header;
  if (body % sizeof(TraceRecord) != 0) {
    return absl::DataLossError(absl::StrCat(
        "trace truncated mid-record: ", body, " bytes of records is not a "
        "multiple of ", sizeof(TraceRecord)));
  }
  const uint64_t in_file = body / sizeof(TraceRecord);
  if (header.records == 0 && in_file != 0) {
    return absl::DataLossError(absl::StrCat(
        "trace unfinished: the recorded program did not exit normally (the "
        "header's count was never written; ", in_file, " records in file)"));
  }
  if (header.records != in_file) {
    return absl::DataLossError(absl::StrCat(
        "trace truncated: the header says ", header.records,
        " records, the file holds ", in_file));
  }

  Trace trace;
  trace.version = header.version;
  trace.pid = header.pid;
  trace.ops.reserve(in_file);
  absl::flat_hash_map<uint64_t, uint32_t> slot_of;  // live address -> slot
  std::vector<uint64_t> slot_size;
  std::vector<uint32_t> free_slots;
  absl::flat_hash_map<uint32_t, uint32_t> thread_index;  // tid -> dense
  std::vector<uint32_t> slot_thread;  // thread that allocated each slot
  uint32_t thread = 0;                // of the record being compiled
  uint64_t live_bytes = 0;
  auto take_slot = [&](uint64_t size) {
    uint32_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = static_cast<uint32_t>(slot_size.size());
      slot_size.push_back(0);
      slot_thread.push_back(0);
    }
    slot_size[slot] = size;
    slot_thread[slot] = thread;
    live_bytes += size;
    trace.peak_live_bytes = std::max(trace.peak_live_bytes, live_bytes);
    return slot;
  };
  auto release = [&](uint32_t slot) {
    live_bytes -= slot_size[slot];
    free_slots.push_back(slot);
  };
  // An address recorded as allocated while still live means its free raced
  // with the allocation (or was not seen): treat the old block as freed.
  auto allocate = [&](uint64_t ptr, uint64_t size, uint8_t align_log2) {
    auto it = slot_of.find(ptr);
    if (it != slot_of.end()) {
      trace.ops.push_back(
          {ReplayOp::Kind::kFree, 0, it->second, 0, 0, thread});
      release(it->second);
      slot_of.erase(it);
    }
    const uint32_t slot = take_slot(size);
    slot_of[ptr] = slot;
    trace.ops.push_back(
        {ReplayOp::Kind::kAlloc, align_log2, slot, 0, size, thread});
  };

  for (uint64_t i = 0; i < in_file; ++i) {
    TraceRecord r;
    std::memcpy(&r, bytes.data() + sizeof header + i * sizeof r, sizeof r);
    if (r.op == 0 || r.op >= kNumTraceOps) {
      return absl::InvalidArgumentError(absl::StrCat(
          "record ", i, " has unknown operation ", int{r.op}));
    }
    thread = thread_index
                 .try_emplace(r.thread,
                              static_cast<uint32_t>(thread_index.size()))
                 .first->second;
    if (thread == trace.thread_ids.size()) trace.thread_ids.push_back(r.thread);
    const TraceOp op = static_cast<TraceOp>(r.op);
    if (op == TraceOp::kFree) {
      auto it = slot_of.find(r.ptr);
      if (it == slot_of.end()) {
        ++trace.unmatched_frees;
        continue;
      }
      ++trace.calls[r.op];
      if (slot_thread[it->second] != thread) ++trace.cross_thread_frees;
      trace.ops.push_back(
          {ReplayOp::Kind::kFree, 0, it->second, 0, 0, thread});
      release(it->second);
      slot_of.erase(it);
      continue;
    }
    if (r.ptr == 0) {
      ++trace.failed_allocations;
      continue;
    }
    ++trace.calls[r.op];
    if (op == TraceOp::kRealloc && r.old_ptr != 0) {
      auto it = slot_of.find(r.old_ptr);
      if (it != slot_of.end()) {
        const uint32_t old_slot = it->second;
        if (slot_thread[old_slot] != thread) ++trace.cross_thread_frees;
        slot_of.erase(it);
        release(old_slot);
        // As in `allocate`: a result still recorded as live was freed
        // unseen.
        auto stale = slot_of.find(r.ptr);
        if (stale != slot_of.end()) {
          trace.ops.push_back(
              {ReplayOp::Kind::kFree, 0, stale->second, 0, 0, thread});
          release(stale->second);
          slot_of.erase(stale);
        }
        const uint32_t slot = take_slot(r.size);
        slot_of[r.ptr] = slot;
        trace.ops.push_back(
            {ReplayOp::Kind::kRealloc, 0, slot, old_slot, r.size, thread});
        continue;
      }
      // Resizing a block from before recording: replay as an allocation.
    }
    allocate(r.ptr, r.size, r.align_log2);
  }
  for (const auto& [ptr, slot] : slot_of) {
    trace.ops.push_back(
        {ReplayOp::Kind::kFree, 0, slot, 0, 0, slot_thread[slot]});
    ++trace.live_at_exit;
  }
  trace.threads = trace.thread_ids.size();
  trace.slots = static_cast<uint32_t>(slot_size.size());
  return trace;
}

absl::StatusOr<Trace> ReadTrace(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read trace ", path, ": it is a directory"));
  }
  // Read into an anonymous mapping, not into a string: a trace is hundreds
  // of MB, and a replay that measures RSS should not start with that much
  // freed into the allocator under test (a stream's doubling buffers and a
  // copy of them were 800 MB of garbage for a 400 MB trace). Not the file
  // mapped either: a mapping raises SIGBUS when another process truncates
  // the file while it is parsed, where a read returns what is there (a
  // truncated trace, reported as one).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    if (errno == ENOENT) {
      return absl::NotFoundError(absl::StrCat("cannot read trace ", path, ": ", why));
    }
    return absl::PermissionDeniedError(
        absl::StrCat("cannot read trace ", path, ": ", why));
  }
  struct stat st {};
  void* map = MAP_FAILED;
  size_t map_bytes = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    map_bytes = static_cast<size_t>(st.st_size);
    map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  std::string bytes;  // a pipe or an empty file: read as it comes
  size_t got = 0;     // into `map`: its size, or fewer if the file shrank
  bool failed = false;
  char buffer[1 << 16];
  for (;;) {
    char* const to = map != MAP_FAILED ? static_cast<char*>(map) + got : buffer;
    const size_t room = map != MAP_FAILED ? map_bytes - got : sizeof buffer;
    if (room == 0) break;
    const ssize_t n = read(fd, to, room);
    if (n < 0 && errno == EINTR) continue;  // a signal, not an error in the data
    if (n < 0) {
      failed = true;
      break;
    }
    if (n == 0) break;
    if (map != MAP_FAILED) {
      got += static_cast<size_t>(n);
    } else {
      bytes.append(buffer, static_cast<size_t>(n));
    }
  }
  if (failed) {
    const std::string why = std::strerror(errno);
    close(fd);
    if (map != MAP_FAILED) munmap(map, map_bytes);
    return absl::DataLossError(
        absl::StrCat("error reading trace ", path, ": ", why));
  }
  close(fd);
  absl::StatusOr<Trace> trace = ParseTrace(
      map != MAP_FAILED
          ? absl::string_view(static_cast<const char*>(map), got)
          : absl::string_view(bytes));
  if (map != MAP_FAILED) munmap(map, map_bytes);
  if (!trace.ok()) {
    return absl::Status(trace.status().code(),
                        absl::StrCat(path, ": ", trace.status().message()));
  }
  return trace;
}

}  // namespace alloc_trace
}  // namespace tessera
