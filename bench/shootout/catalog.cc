// Copyright 2026 The Tessera Authors.

#include "bench/shootout/catalog.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace shootout {

const std::vector<SubjectInfo>& AllSubjects() {
  static const auto* subjects = new std::vector<SubjectInfo>{
      {"glibc", true, true, "glibc malloc/free (Debian's libc)"},
      {"jemalloc", true, true, "jemalloc via LD_PRELOAD (libjemalloc2)"},
      {"mimalloc", true, true, "mimalloc via LD_PRELOAD (libmimalloc2.0)"},
      {"tcmalloc", true, true,
       "gperftools tcmalloc via LD_PRELOAD (libtcmalloc-minimal4)"},
      {"tessera_preload", true, true,
       "Tessera malloc (alloc/malloc) as the process's malloc via LD_PRELOAD "
       "of libtessera_malloc.so, exactly as the peers run",
       /*tessera=*/true},
      {"tessera", false, true,
       "tessera::TesseraMalloc through the Allocator interface (sized free)",
       /*tessera=*/true},
      {"malloc", false, true,
       "tessera::MallocAllocator (glibc through the Allocator interface)"},
      {"aligned64", false, true,
       "tessera::AlignedAllocator(64): header-aligned malloc, per-thread "
       "cache for small blocks"},
      {"zeroed", false, true, "tessera::ZeroedAllocator (calloc underneath)"},
      {"tlsf", false, false,
       "tessera::TlsfArena (free by pointer through the Allocator interface, "
       "growing 256 MiB regions)"},
      {"tlsf_locked", false, true,
       "tessera::LockedTlsfArena (TLSF behind one lock)"},
      {"size_class", false, false,
       "tessera::SizeClassPool (20 classes up to 1 KiB, glibc above)"},
      {"buffer_cache", false, true,
       "tessera::BufferCache (mapped large buffers kept per size class; "
       "malloc below 64 KiB)"},
      {"stacked_pool", false, false,
       "tessera::StackedPool (fixed 64-byte cells, Take/Return)"},
      {"numpy", false, true,
       "NumPy (Debian python3-numpy) in /usr/bin/python3, its own process; "
       "the baseline of the tensor workloads"},
  };
  return *subjects;
}

const std::vector<WorkloadInfo>& AllWorkloads() {
  static const auto* workloads = new std::vector<WorkloadInfo>{
      {"rt_64", "Round trip 64 B",
       "allocate 64 B, write one byte, free; ns per round trip"},
      {"rt_1k", "Round trip 1 KiB",
       "allocate 1 KiB, write one byte, free; ns per round trip"},
      {"rt_100k", "Round trip 100 KiB",
       "allocate 100 KiB, write one byte, free; ns per round trip"},
      {"rt_1m", "Round trip 1 MiB",
       "allocate 1 MiB, write one byte, free; ns per round trip"},
      {"rt_10m", "Round trip 10 MB",
       "allocate 10 MB, write one byte, free; ns per round trip"},
      {"w1", "W1 batch (untouched)",
       "StgSharp batches of 2048 allocations, sizes {64,100,200,400,1024,"
       "4096} (fixed seed), freed in shuffled order; ns per alloc+free"},
      {"w1_touched", "W1 batch (touched)",
       "W1 with the first and last 8 bytes of every block written"},
      {"w3", "W3 small-object churn",
       "16-64 B random sizes, ring of 64 live objects, free oldest + "
       "allocate; ns per iteration"},
      {"w4", "W4 fragmentation",
       "log-uniform 16 B-64 KiB, many live blocks, random free+allocate, "
       "every page touched; ns per op, latency percentiles, peak RSS / live"},
      {"pool", "Pool take/return",
       "64-byte cells, 32 taken then returned in reverse; ns per pair"},
      {"xthread", "Cross-thread producer/consumer",
       "4 threads in a ring: each allocates batches of 256 blocks of "
       "16-512 B and hands them to the next thread, which frees them "
       "(every free is a cross-thread free); wall ns per allocation"},
      {"larson", "Larson (heap reclaim)",
       "8 threads at a time, each replacing random blocks (16-1024 B) of a "
       "live set of 512; every thread exits after its share and a new one "
       "inherits and frees its blocks (mimalloc-bench's larson); wall ns "
       "per operation"},
      {"two_thread", "Two-thread churn",
       "two threads, each a ring of 256 live blocks of 16-512 B; wall ns "
       "per operation per thread (and the speedup over one thread)"},
      // Tessera's tensor engine (storage from malloc = the default
      // allocator, aligned64, tlsf, buffer_cache) against NumPy, float32.
      {"tensor_arange_1e3", "Tensor arange 1e3",
       "arange(0, n, 1, float32), n = 1e3; ns per call"},
      {"tensor_arange_1e5", "Tensor arange 1e5",
       "arange(0, n, 1, float32), n = 1e5; ns per call"},
      {"tensor_arange_1e7", "Tensor arange 1e7",
       "arange(0, n, 1, float32), n = 1e7; ns per call"},
      {"tensor_zeros_1e3", "Tensor zeros 1e3",
       "zeros(n, float32), n = 1e3; ns per call"},
      {"tensor_zeros_1e5", "Tensor zeros 1e5",
       "zeros(n, float32), n = 1e5; ns per call"},
      {"tensor_zeros_1e7", "Tensor zeros 1e7",
       "zeros(n, float32), n = 1e7; ns per call"},
      {"tensor_add_1e3", "Tensor a + b 1e3",
       "allocating a + b of two float32 vectors, n = 1e3; ns per call"},
      {"tensor_add_1e5", "Tensor a + b 1e5",
       "allocating a + b of two float32 vectors, n = 1e5; ns per call"},
      {"tensor_add_1e7", "Tensor a + b 1e7",
       "allocating a + b of two float32 vectors, n = 1e7; ns per call"},
      {"tensor_sum_1e3", "Tensor sum 1e3",
       "sum of a float32 vector (0-d result), n = 1e3; ns per call"},
      {"tensor_sum_1e5", "Tensor sum 1e5",
       "sum of a float32 vector (0-d result), n = 1e5; ns per call"},
      {"tensor_sum_1e7", "Tensor sum 1e7",
       "sum of a float32 vector (0-d result), n = 1e7; ns per call"},
      // Only with --trace, never in the default set.
      {"trace", "Trace replay",
       "a recorded program's calls (tools/alloc_trace) replayed in order on "
       "one thread; ns per call; peak RSS growth / peak live bytes of the "
       "validation pass, which writes every page of every block, after the "
       "process's malloc gave back the free memory it held"},
      {"trace_threads", "Trace replay, one thread per recorded thread",
       "the recorded calls replayed by as many threads as the program had, "
       "each in its recorded order, a block freed on another thread handed "
       "over once its allocation has happened; single-threaded allocators "
       "run behind one mutex; wall ns per call"},
  };
  return *workloads;
}

const std::vector<PeerLibrary>& AllPeers() {
  static const auto* peers = new std::vector<PeerLibrary>{
      {"glibc", "", "libc6"},
      {"jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
       "libjemalloc2 (libjemalloc-dev)"},
      {"mimalloc", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2",
       "libmimalloc2.0 (libmimalloc-dev)"},
      {"tcmalloc", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
       "libtcmalloc-minimal4 (libgoogle-perftools-dev)"},
      {"tessera_preload", strdup(TesseraMallocLibrary().c_str()),
       "no Debian package: build //alloc/malloc:libtessera_malloc.so (a data "
       "dependency of //bench:shootout) or set TESSERA_MALLOC_SO"},
  };
  return *peers;
}

std::string TesseraMallocLibrary() {
  const char* env = std::getenv("TESSERA_MALLOC_SO");
  if (env != nullptr && *env != 0) return env;
  constexpr const char* kRunfile = "tessera/alloc/malloc/libtessera_malloc.so";
  std::vector<std::string> candidates;
  const char* runfiles = std::getenv("RUNFILES_DIR");
  if (runfiles != nullptr) candidates.push_back(absl::StrCat(runfiles, "/", kRunfile));
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = 0;
    candidates.push_back(absl::StrCat(exe, ".runfiles/", kRunfile));
  }
  for (const std::string& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) {
      char resolved[4096];
      if (realpath(c.c_str(), resolved) != nullptr) return resolved;
      return c;
    }
  }
  return "";
}

const SubjectInfo* FindSubject(absl::string_view name) {
  for (const SubjectInfo& s : AllSubjects()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

const WorkloadInfo* FindWorkload(absl::string_view name) {
  for (const WorkloadInfo& w : AllWorkloads()) {
    if (name == w.name) return &w;
  }
  return nullptr;
}

const PeerLibrary* FindPeer(absl::string_view name) {
  for (const PeerLibrary& p : AllPeers()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

bool IsTensorWorkload(absl::string_view workload) {
  return absl::StartsWith(workload, "tensor_");
}

absl::string_view BaselineFor(absl::string_view workload) {
  return IsTensorWorkload(workload) ? kNumpy : kBaseline;
}

bool ParseTensorWorkload(absl::string_view workload, std::string* op,
                         int64_t* elements) {
  if (!IsTensorWorkload(workload) || FindWorkload(workload) == nullptr) {
    return false;
  }
  absl::string_view rest = workload.substr(7);  // after "tensor_"
  const size_t underscore = rest.find('_');
  if (underscore == absl::string_view::npos) return false;
  const absl::string_view size = rest.substr(underscore + 1);
  if (size == "1e3") {
    *elements = 1000;
  } else if (size == "1e5") {
    *elements = 100000;
  } else if (size == "1e7") {
    *elements = 10000000;
  } else {
    return false;
  }
  *op = std::string(rest.substr(0, underscore));
  return true;
}

bool Supports(const SubjectInfo& subject, absl::string_view workload) {
  const absl::string_view name = subject.name;
  if (IsTensorWorkload(workload)) {
    return name == kNumpy || name == "malloc" || name == "aligned64" ||
           name == "tlsf" || name == "buffer_cache";
  }
  if (name == kNumpy) return false;
  // Threaded replay: every allocator that serves general requests;
  // single-threaded ones behind a mutex (workloads.h).
  if (workload == "trace_threads") {
    return name != "stacked_pool" && name != "zeroed" &&
           name != "buffer_cache";
  }
  const bool round_trip = absl::StartsWith(workload, "rt_");
  // A fixed-size pool serves fixed-size cells and nothing else.
  if (name == "stacked_pool") return workload == "pool";
  // Zeroing and large-buffer caching only mean something per request size.
  if (name == "zeroed" || name == "buffer_cache") return round_trip;
  // The locked arena exists for sharing; alone it is tlsf plus a lock.
  const bool threaded = workload == "two_thread" || workload == "xthread" ||
                        workload == "larson";
  if (name == "tlsf_locked") return threaded;
  if (threaded) return subject.thread_safe;
  return true;
}

namespace {

// Where `symbol`'s definition lives, or "" if it does not resolve.
std::string DefiningObject(const char* symbol) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  if (address == nullptr) return "";
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

}  // namespace

absl::StatusOr<std::string> ProveActiveAllocator(absl::string_view peer) {
  const std::string malloc_in = DefiningObject("malloc");
  const std::string mallctl = DefiningObject("mallctl");
  const std::string mi_version = DefiningObject("mi_version");
  const std::string tessera_marker = DefiningObject("tessera_malloc_version");
  std::string tcmalloc = DefiningObject("tc_version");
  if (tcmalloc.empty()) tcmalloc = DefiningObject("MallocExtension_Instance");
  const std::string found = absl::StrCat(
      "malloc in ", malloc_in.empty() ? "?" : malloc_in,
      mallctl.empty() ? "" : ", mallctl present",
      mi_version.empty() ? "" : ", mi_version present",
      tcmalloc.empty() ? "" : ", tc_version present",
      tessera_marker.empty() ? "" : ", tessera_malloc_version present");
  auto refuse = [&](absl::string_view why) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to report for peer '", peer, "': ", why, " (", found, ")"));
  };
  if (peer == "glibc") {
    // A sanitizer runtime intercepts malloc itself and cannot share the
    // process with a preloaded peer: the test builds run Tessera's subjects
    // on it, and say so.
    for (const char* runtime : {"__asan_init", "__tsan_init", "__msan_init"}) {
      if (dlsym(RTLD_DEFAULT, runtime) != nullptr &&
          mallctl.empty() && mi_version.empty() && tcmalloc.empty()) {
        return absl::StrCat("glibc under a sanitizer runtime (", runtime,
                            " present; figures are not glibc's), ", found);
      }
    }
    if (!mallctl.empty() || !mi_version.empty() || !tcmalloc.empty() ||
        !tessera_marker.empty()) {
      return refuse("a malloc replacement is loaded");
    }
    if (!absl::StrContains(malloc_in, "libc.so")) {
      return refuse("malloc does not come from libc");
    }
    return absl::StrCat("glibc: no jemalloc/mimalloc/tcmalloc markers, ",
                        found);
  }
  std::string marker;
  absl::string_view library_word;
  if (peer == "jemalloc") {
    marker = mallctl;
    library_word = "jemalloc";
  } else if (peer == "mimalloc") {
    marker = mi_version;
    library_word = "mimalloc";
  } else if (peer == "tcmalloc") {
    marker = tcmalloc;
    library_word = "tcmalloc";
  } else if (peer == "tessera_preload") {
    marker = tessera_marker;
    library_word = "libtessera_malloc";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown peer '", peer, "'"));
  }
  if (marker.empty()) return refuse("its marker symbol is missing");
  if (!absl::StrContains(malloc_in, library_word)) {
    return refuse(absl::StrCat("malloc does not resolve into ", library_word));
  }
  return absl::StrCat(peer, ": marker from ", marker, ", ", found);
}

}  // namespace shootout
}  // namespace tessera
