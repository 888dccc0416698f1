// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: catalog.h
// -----------------------------------------------------------------------------
//
// What the shootout can run: the allocators ("subjects"), the workloads, which
// subject runs which workload, and the global-malloc peers with the shared
// library, Debian package and marker symbol that prove each one is active.
//
// Every measurement runs in a fresh child process of the shootout binary
// (shootout_main.cc): a peer's child has LD_PRELOAD set to the peer's library;
// a Tessera allocator's child runs on glibc. A fresh process per measurement
// means no allocator inherits another's heap, and peak RSS is that of one
// allocator on one workload.

#ifndef TESSERA_BENCH_SHOOTOUT_CATALOG_H_
#define TESSERA_BENCH_SHOOTOUT_CATALOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace shootout {

// The allocator every ratio is measured against, in the same run.
inline constexpr absl::string_view kBaseline = "glibc";
// The tensor workloads ("tensor_<op>_<size>") compare Tessera's tensor
// engine, with its storage from several Tessera allocators, against NumPy
// run by a Python interpreter in its own process: their baseline is NumPy.
inline constexpr absl::string_view kNumpy = "numpy";

struct SubjectInfo {
  const char* name;
  // Global-malloc peers run with the peer as the process's malloc; Tessera
  // subjects run in the shootout binary on glibc.
  bool is_peer;
  // Safe to call from two threads at once (two_thread workload).
  bool thread_safe;
  const char* description;
  // Tessera's own code: a Tessera allocator in process, or Tessera malloc
  // preloaded like a peer (is_peer and tessera both true).
  bool tessera = false;
};

struct WorkloadInfo {
  const char* name;
  const char* title;
  const char* description;
};

struct PeerLibrary {
  const char* name;
  const char* path;            // LD_PRELOAD value; empty for glibc
  const char* debian_package;  // what to install when `path` is missing
};

// Every subject, peers first; the baseline (glibc) is the first peer.
const std::vector<SubjectInfo>& AllSubjects();
const std::vector<WorkloadInfo>& AllWorkloads();
const std::vector<PeerLibrary>& AllPeers();

const SubjectInfo* FindSubject(absl::string_view name);
const WorkloadInfo* FindWorkload(absl::string_view name);
const PeerLibrary* FindPeer(absl::string_view name);

// Where libtessera_malloc.so is: $TESSERA_MALLOC_SO, else the runfiles of the
// running binary (bazel run / bazel test put it there), else "".
std::string TesseraMallocLibrary();

// Whether `subject` takes part in `workload` (a fixed-size pool only serves
// the pool workload; single-threaded allocators sit out two_thread; ...).
bool Supports(const SubjectInfo& subject, absl::string_view workload);

// Whether `workload` is one of the tensor workloads (baseline NumPy).
bool IsTensorWorkload(absl::string_view workload);
// The subject `workload`'s ratios are measured against: NumPy for tensor
// workloads, glibc for the rest.
absl::string_view BaselineFor(absl::string_view workload);

// A tensor workload's operation ("arange", "zeros", "add", "sum") and
// element count, parsed from its name; false for any other name.
bool ParseTensorWorkload(absl::string_view workload, std::string* op,
                         int64_t* elements);

// Run in a child at start-up: proves that the global malloc really is `peer`
// ("glibc" for Tessera subjects). jemalloc must export `mallctl`, mimalloc
// `mi_version`, tcmalloc `tc_version` or `MallocExtension_Instance`, and
// `malloc` itself must resolve into that library; glibc must show none of the
// three markers and `malloc` must resolve into libc (or, in a sanitizer
// build, the sanitizer runtime must be present: it intercepts malloc, and the
// proof says the figures are not glibc's). Returns a one-line proof
// ("jemalloc: mallctl found, malloc in /usr/lib/.../libjemalloc.so.2") or
// FailedPrecondition saying what was found instead.
absl::StatusOr<std::string> ProveActiveAllocator(absl::string_view peer);

}  // namespace shootout
}  // namespace tessera

#endif  // TESSERA_BENCH_SHOOTOUT_CATALOG_H_
