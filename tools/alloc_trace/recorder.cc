// Copyright 2026 The Tessera Authors.
//
// liballoc_trace.so: an LD_PRELOAD recorder of malloc, calloc, realloc, free,
// posix_memalign, aligned_alloc and memalign.
//
//   ALLOC_TRACE_FILE=/tmp/prog.trace LD_PRELOAD=.../liballoc_trace.so prog
//
// A "%p" in ALLOC_TRACE_FILE is replaced by the process id, so that programs
// that start other programs leave one trace per process; without it, only
// the first process records (its children see ALLOC_TRACE_OWNER, which this
// library sets, and stay quiet), or, if it exec's another program without
// forking (wrapper scripts do), the program it becomes. A forked child stops
// recording.
//
// Careful points:
//   * Bootstrapping: the real functions come from dlsym(RTLD_NEXT), and
//     dlsym itself may call calloc. While resolving, requests are served from
//     a static buffer; frees of pointers into it are ignored.
//   * Recursion: anything the recorder does that allocates (getenv does not;
//     setenv does) runs with a thread-local guard set, and guarded calls go
//     straight to the real functions unrecorded. The TLS is initial-exec, so
//     touching it never allocates.
//   * Threads: one pthread mutex around a 2048-record buffer, flushed with
//     write(2) when full and at exit. Records arriving after the exit flush
//     (later destructors) are written through and the header count updated.
//   * Overhead: a lock, a 32-byte copy and a write(2) per 64 KiB of trace.

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "tools/alloc_trace/trace_format.h"

namespace {

using tessera::alloc_trace::TraceHeader;
using tessera::alloc_trace::TraceOp;
using tessera::alloc_trace::TraceRecord;

using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using FreeFn = void (*)(void*);
using PosixMemalignFn = int (*)(void**, size_t, size_t);
using AlignedAllocFn = void* (*)(size_t, size_t);

MallocFn real_malloc;
CallocFn real_calloc;
ReallocFn real_realloc;
FreeFn real_free;
PosixMemalignFn real_posix_memalign;
AlignedAllocFn real_aligned_alloc;
AlignedAllocFn real_memalign;

// Bootstrap heap for dlsym's own allocations.
alignas(64) char bootstrap[64 << 10];
size_t bootstrap_used = 0;
bool resolving = false;

bool InBootstrap(const void* p) {
  return p >= bootstrap && p < bootstrap + sizeof bootstrap;
}

void* BootstrapAlloc(size_t n, size_t alignment = 16) {
  size_t start = (bootstrap_used + alignment - 1) & ~(alignment - 1);
  if (start + n > sizeof bootstrap) return nullptr;
  bootstrap_used = start + n;
  return bootstrap + start;  // static storage: already zero
}

__thread bool in_recorder __attribute__((tls_model("initial-exec"))) = false;

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
int fd = -1;
bool exiting = false;  // after the exit flush: write through
uint64_t written = 0;  // records in the file
constexpr int kBufferRecords = 2048;
TraceRecord buffer[kBufferRecords];
int buffered = 0;

void Resolve() {
  if (real_malloc != nullptr || resolving) return;
  resolving = true;
  real_malloc = reinterpret_cast<MallocFn>(dlsym(RTLD_NEXT, "malloc"));
  real_calloc = reinterpret_cast<CallocFn>(dlsym(RTLD_NEXT, "calloc"));
  real_realloc = reinterpret_cast<ReallocFn>(dlsym(RTLD_NEXT, "realloc"));
  real_free = reinterpret_cast<FreeFn>(dlsym(RTLD_NEXT, "free"));
  real_posix_memalign =
      reinterpret_cast<PosixMemalignFn>(dlsym(RTLD_NEXT, "posix_memalign"));
  real_aligned_alloc =
      reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "aligned_alloc"));
  real_memalign = reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "memalign"));
  resolving = false;
}

void WriteAll(const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fd = -1;  // disk full or closed: stop rather than write garbage
      return;
    }
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void WriteHeaderCount() {
  if (fd < 0) return;
  const uint64_t count = written;
  const ssize_t rc =
      pwrite(fd, &count, sizeof count, offsetof(TraceHeader, records));
  (void)rc;  // nothing useful to do if the header cannot be updated
}

void FlushLocked() {
  if (fd >= 0 && buffered > 0) {
    WriteAll(buffer, sizeof(TraceRecord) * buffered);
    written += static_cast<uint64_t>(buffered);
  }
  buffered = 0;
}

void Record(TraceOp op, size_t size, const void* ptr, const void* old_ptr,
            size_t alignment) {
  if (fd < 0 || in_recorder) return;
  static __thread uint32_t tid __attribute__((tls_model("initial-exec"))) = 0;
  if (tid == 0) tid = static_cast<uint32_t>(syscall(SYS_gettid));
  TraceRecord r;
  r.op = static_cast<uint8_t>(op);
  r.align_log2 = alignment == 0 ? 0 : static_cast<uint8_t>(__builtin_ctzll(alignment));
  r.reserved = 0;
  r.thread = tid;
  r.size = size;
  r.ptr = reinterpret_cast<uintptr_t>(ptr);
  r.old_ptr = reinterpret_cast<uintptr_t>(old_ptr);
  pthread_mutex_lock(&mu);
  if (fd >= 0) {
    buffer[buffered++] = r;
    if (buffered == kBufferRecords || exiting) {
      FlushLocked();
      if (exiting) WriteHeaderCount();
    }
  }
  pthread_mutex_unlock(&mu);
}

void AfterForkInChild() {
  // The parent owns the file and the buffer's contents.
  fd = -1;
  buffered = 0;
}

__attribute__((constructor)) void Start() {
  Resolve();
  const char* path = getenv("ALLOC_TRACE_FILE");
  if (path == nullptr || *path == '\0') return;
  char name[4096];
  size_t n = 0;
  bool per_pid = false;
  for (const char* p = path; *p != '\0' && n + 16 < sizeof name; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      n += static_cast<size_t>(
          snprintf(name + n, sizeof name - n, "%d", static_cast<int>(getpid())));
      ++p;
      per_pid = true;
    } else {
      name[n++] = *p;
    }
  }
  name[n] = '\0';
  in_recorder = true;
  const char* owner = getenv("ALLOC_TRACE_OWNER");
  if (!per_pid && owner != nullptr && atoi(owner) != getpid()) {
    in_recorder = false;
    return;  // a child of the recorded program: the first process records
  }
  // Same pid: the owner exec'd another program (a wrapper script such as a
  // pyenv shim exec'ing python). The old image never flushed; the program
  // now running is the one to record, so the file starts afresh.
  char pid_text[16];
  snprintf(pid_text, sizeof pid_text, "%d", static_cast<int>(getpid()));
  setenv("ALLOC_TRACE_OWNER", pid_text, 1);
  fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "alloc_trace: cannot open %s: %s\n", name, strerror(errno));
    in_recorder = false;
    return;
  }
  TraceHeader header;
  memcpy(header.magic, tessera::alloc_trace::kTraceMagic, sizeof header.magic);
  header.version = tessera::alloc_trace::kTraceVersion;
  header.record_bytes = sizeof(TraceRecord);
  header.records = 0;
  header.pid = static_cast<uint32_t>(getpid());
  header.reserved = 0;
  WriteAll(&header, sizeof header);
  pthread_atfork(nullptr, nullptr, AfterForkInChild);
  in_recorder = false;
}

__attribute__((destructor)) void Finish() {
  pthread_mutex_lock(&mu);
  FlushLocked();
  WriteHeaderCount();
  exiting = true;
  pthread_mutex_unlock(&mu);
}

}  // namespace

extern "C" {

void* malloc(size_t size) noexcept {
  if (real_malloc == nullptr) {
    Resolve();
    if (real_malloc == nullptr) return BootstrapAlloc(size);
  }
  void* p = real_malloc(size);
  Record(TraceOp::kMalloc, size, p, nullptr, 0);
  return p;
}

void* calloc(size_t count, size_t size) noexcept {
  if (real_calloc == nullptr) {
    Resolve();
    if (real_calloc == nullptr) {
      if (size != 0 && count > SIZE_MAX / size) return nullptr;
      return BootstrapAlloc(count * size);
    }
  }
  void* p = real_calloc(count, size);
  Record(TraceOp::kCalloc, count * size, p, nullptr, 0);
  return p;
}

void* realloc(void* old, size_t size) noexcept {
  if (InBootstrap(old)) {
    void* p = malloc(size);
    if (p != nullptr) {
      const size_t room = static_cast<size_t>(bootstrap + sizeof bootstrap -
                                              static_cast<char*>(old));
      memcpy(p, old, size < room ? size : room);
    }
    return p;
  }
  if (real_realloc == nullptr) Resolve();
  void* p = real_realloc(old, size);
  Record(TraceOp::kRealloc, size, p, old, 0);
  return p;
}

void free(void* p) noexcept {
  if (p == nullptr || InBootstrap(p)) return;
  if (real_free == nullptr) Resolve();
  Record(TraceOp::kFree, 0, p, nullptr, 0);
  real_free(p);
}

int posix_memalign(void** out, size_t alignment, size_t size) noexcept {
  if (real_posix_memalign == nullptr) Resolve();
  const int rc = real_posix_memalign(out, alignment, size);
  if (rc == 0) Record(TraceOp::kPosixMemalign, size, *out, nullptr, alignment);
  return rc;
}

void* aligned_alloc(size_t alignment, size_t size) noexcept {
  if (real_aligned_alloc == nullptr) Resolve();
  void* p = real_aligned_alloc(alignment, size);
  Record(TraceOp::kAlignedAlloc, size, p, nullptr, alignment);
  return p;
}

void* memalign(size_t alignment, size_t size) noexcept {
  if (real_memalign == nullptr) Resolve();
  void* p = real_memalign(alignment, size);
  Record(TraceOp::kMemalign, size, p, nullptr, alignment);
  return p;
}

}  // extern "C"
