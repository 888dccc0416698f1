// Copyright 2026 The Tessera Authors.
//
// sort and argsort (sort.h).

#include "tensor/sort.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "hwy/base.h"
#include "hwy/contrib/sort/vqsort.h"
#include "tensor/internal/along_axis.h"
#include "tensor/view.h"

namespace tessera {
namespace {

// One Sorter per thread: it owns vqsort's scratch buffer and is not
// thread-safe.
const hwy::Sorter& ThreadSorter() {
  thread_local const hwy::Sorter sorter;
  return sorter;
}

template <typename T>
constexpr bool kVqsortType =
    std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value ||
    std::is_same<T, int64_t>::value || std::is_same<T, uint16_t>::value ||
    std::is_same<T, uint32_t>::value || std::is_same<T, uint64_t>::value ||
    std::is_same<T, float>::value || std::is_same<T, double>::value;

// The unsigned key whose order is T's order with NaN last (all NaNs equal)
// and -0.0 == +0.0.
template <typename T>
auto OrderKey(T x) {
  if constexpr (std::is_floating_point<T>::value) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr U kSign = U{1} << (sizeof(U) * 8 - 1);
    if (std::isnan(x)) return static_cast<U>(~U{0});
    if (x == 0) x = 0;  // -0.0 -> +0.0
    U b;
    std::memcpy(&b, &x, sizeof(b));
    return (b & kSign) ? static_cast<U>(~b) : static_cast<U>(b | kSign);
  } else if constexpr (std::is_same<T, bool>::value) {
    return static_cast<uint8_t>(x);
  } else {
    using U = std::make_unsigned_t<T>;
    U b = static_cast<U>(x);
    if constexpr (std::is_signed<T>::value) {
      b ^= static_cast<U>(U{1} << (sizeof(U) * 8 - 1));
    }
    return b;
  }
}

// NumPy's order: a before b, NaN last.
template <typename T>
bool Less(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return a < b || (!std::isnan(a) && std::isnan(b));
  } else {
    return a < b;
  }
}

// Counting sort of one-byte values (bool, int8, uint8).
template <typename T>
void CountingSort(T* p, int64_t n) {
  int64_t counts[256] = {};
  for (int64_t i = 0; i < n; ++i) ++counts[OrderKey(p[i])];
  int64_t at = 0;
  for (int k = 0; k < 256; ++k) {
    // Only keys that occur make a value (a bool made of any other byte
    // would be invalid).
    if (counts[k] == 0) continue;
    uint8_t key = static_cast<uint8_t>(k);
    if constexpr (std::is_signed<T>::value) key ^= 0x80;
    T v;
    std::memcpy(&v, &key, 1);
    std::fill(p + at, p + at + counts[k], v);
    at += counts[k];
  }
}

// Sorts non-NaN floats as their order-preserving unsigned bit patterns, in
// place. vqsort of Highway 1.0.3 sorts float lanes with +-inf as padding
// sentinels and returns a +inf input as the largest finite value; unsigned
// keys have no such values to lose. (-0.0 sorts before +0.0, which NumPy's
// order leaves free.)
template <typename T>
void SortFloatsAsKeys(T* p, int64_t m) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr U kSign = U{1} << (sizeof(U) * 8 - 1);
  U* k = reinterpret_cast<U*>(p);  // same size; accessed only as U below
  for (int64_t i = 0; i < m; ++i) {
    U b;
    std::memcpy(&b, p + i, sizeof(b));
    b = (b & kSign) ? static_cast<U>(~b) : static_cast<U>(b | kSign);
    std::memcpy(k + i, &b, sizeof(b));
  }
  ThreadSorter()(k, static_cast<size_t>(m), hwy::SortAscending());
  for (int64_t i = 0; i < m; ++i) {
    U b;
    std::memcpy(&b, k + i, sizeof(b));
    b = (b & kSign) ? static_cast<U>(b & ~kSign) : static_cast<U>(~b);
    std::memcpy(p + i, &b, sizeof(b));
  }
}

template <typename T>
void SortRow(T* p, int64_t n, bool stable) {
  if (n < 2) return;
  if constexpr (sizeof(T) == 1) {
    CountingSort(p, n);
  } else if constexpr (std::is_floating_point<T>::value) {
    auto not_nan = [](T x) { return !std::isnan(x); };
    if (stable) {
      const int64_t m = std::stable_partition(p, p + n, not_nan) - p;
      std::stable_sort(p, p + m);
    } else {
      SortFloatsAsKeys(p, std::partition(p, p + n, not_nan) - p);
    }
  } else {
    static_assert(kVqsortType<T>, "vqsort covers every integer of 2+ bytes");
    ThreadSorter()(p, static_cast<size_t>(n), hwy::SortAscending());
  }
}

// Scratch reused across the rows of one argsort.
struct ArgsortScratch {
  std::vector<uint64_t> pairs64;
  std::vector<hwy::uint128_t> pairs128;
};

template <typename T>
void ArgsortRow(const T* p, int64_t n, int64_t* out, ArgsortScratch& s) {
  if (n == 0) return;
  if constexpr (sizeof(T) == 1) {
    int64_t starts[257] = {};
    for (int64_t i = 0; i < n; ++i) ++starts[OrderKey(p[i]) + 1];
    for (int k = 0; k < 256; ++k) starts[k + 1] += starts[k];
    for (int64_t i = 0; i < n; ++i) out[starts[OrderKey(p[i])]++] = i;
    return;
  } else {
    if (static_cast<uint64_t>(n) >= (uint64_t{1} << 32)) {
      std::iota(out, out + n, int64_t{0});
      std::stable_sort(out, out + n,
                       [p](int64_t a, int64_t b) { return Less(p[a], p[b]); });
      return;
    }
    if constexpr (sizeof(T) <= 4) {
      // (key << 32) | index: sorting the words sorts by key, ties by index.
      s.pairs64.resize(static_cast<size_t>(n));
      uint64_t* w = s.pairs64.data();
      for (int64_t i = 0; i < n; ++i) {
        w[i] = (static_cast<uint64_t>(OrderKey(p[i])) << 32) |
               static_cast<uint64_t>(i);
      }
      ThreadSorter()(w, static_cast<size_t>(n), hwy::SortAscending());
      for (int64_t i = 0; i < n; ++i) {
        out[i] = static_cast<int64_t>(w[i] & 0xFFFFFFFFu);
      }
    } else {
      s.pairs128.resize(static_cast<size_t>(n));
      hwy::uint128_t* w = s.pairs128.data();
      for (int64_t i = 0; i < n; ++i) {
        w[i].hi = static_cast<uint64_t>(OrderKey(p[i]));
        w[i].lo = static_cast<uint64_t>(i);
      }
      ThreadSorter()(w, static_cast<size_t>(n), hwy::SortAscending());
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(w[i].lo);
    }
  }
}

absl::StatusOr<int> SortAxis(const Tensor& t, std::optional<int> axis,
                             const char* op) {
  if (!t.valid()) {
    return absl::InvalidArgumentError(std::string(op) + ": empty handle");
  }
  return NormalizeAxis(*axis, t.ndim());
}

// float16 sorts as its exact float32 values (vqsort of Highway 1.0.3 has
// no float16 lanes): the same order, NaN last, and narrowing back gives the
// same bits (a NaN comes back quiet).
bool IsFloat16(const Tensor& t) {
  return t.valid() && t.dtype() == DType::kFloat16;
}

absl::StatusOr<Tensor> Narrowed(absl::StatusOr<Tensor> wide,
                                Allocator* allocator) {
  if (!wide.ok()) return wide.status();
  return astype(*wide, DType::kFloat16, allocator);
}

}  // namespace

absl::StatusOr<Tensor> sort(const Tensor& t, std::optional<int> axis,
                            bool stable, Allocator* allocator) {
  if (IsFloat16(t)) {
    auto wide = astype(t, DType::kFloat32);
    if (!wide.ok()) return wide.status();
    return Narrowed(sort(*wide, axis, stable), allocator);
  }
  if (!axis.has_value()) {
    if (!t.valid()) return absl::InvalidArgumentError("sort: empty handle");
    auto flat = ravel(t);
    if (!flat.ok()) return flat.status();
    return sort(*flat, 0, stable, allocator);
  }
  auto a = SortAxis(t, axis, "sort");
  if (!a.ok()) return a.status();
  auto moved = internal::MoveAxisLast(t, *a);
  if (!moved.ok()) return moved.status();
  auto work = copy(moved->view, allocator);
  if (!work.ok()) return work.status();
  VisitDType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!kIsFloat16<T>) {  // widened above
      internal::ForEachLane(*work, [&](char* lane, int64_t n, int64_t) {
        SortRow(reinterpret_cast<T*>(lane), n, stable);
      });
    }
  });
  return internal::MoveLastAxisBack(*work, *a, moved->inverse, allocator);
}

absl::StatusOr<Tensor> argsort(const Tensor& t, std::optional<int> axis,
                               bool stable, Allocator* allocator) {
  (void)stable;  // always stable: see sort.h
  if (IsFloat16(t)) {
    auto wide = astype(t, DType::kFloat32);
    if (!wide.ok()) return wide.status();
    return argsort(*wide, axis, stable, allocator);
  }
  if (!axis.has_value()) {
    if (!t.valid()) return absl::InvalidArgumentError("argsort: empty handle");
    auto flat = ravel(t);
    if (!flat.ok()) return flat.status();
    return argsort(*flat, 0, stable, allocator);
  }
  auto a = SortAxis(t, axis, "argsort");
  if (!a.ok()) return a.status();
  auto moved = internal::MoveAxisLast(t, *a);
  if (!moved.ok()) return moved.status();
  // The lanes contiguous in memory (a view when they already are).
  Tensor lanes = moved->view;
  if (!lanes.c_contiguous()) {
    auto c = copy(lanes);
    if (!c.ok()) return c.status();
    lanes = *std::move(c);
  }
  auto out = empty(lanes.shape(), DType::kInt64, allocator);
  if (!out.ok()) return out.status();
  if (lanes.size() > 0) {
    const int64_t n = lanes.shape(lanes.ndim() - 1);
    int64_t* indices = static_cast<int64_t*>(out->mutable_data());
    ArgsortScratch scratch;
    VisitDType(t.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (!kIsFloat16<T>) {  // widened above
        internal::ForEachLane(
            lanes, [&](char* lane, int64_t len, int64_t r) {
              ArgsortRow(reinterpret_cast<const T*>(lane), len,
                         indices + r * n, scratch);
            });
      }
    });
  }
  return internal::MoveLastAxisBack(*out, *a, moved->inverse, allocator);
}

absl::StatusOr<UniqueResult> unique(const Tensor& t, Allocator* allocator) {
  if (IsFloat16(t)) {
    auto wide = astype(t, DType::kFloat32);
    if (!wide.ok()) return wide.status();
    auto u = unique(*wide, allocator);
    if (!u.ok()) return u.status();
    auto values = Narrowed(std::move(u->values), allocator);
    if (!values.ok()) return values.status();
    return UniqueResult{*std::move(values), std::move(u->counts)};
  }
  auto sorted = sort(t, std::nullopt, false, allocator);
  if (!sorted.ok()) return sorted.status();
  const int64_t n = sorted->size();
  std::vector<int64_t> counts;
  int64_t kept = 0;
  VisitDType(t.dtype(), [&](auto zero) {
    using T = std::conditional_t<kIsFloat16<decltype(zero)>, float,
                                 decltype(zero)>;
    if (kIsFloat16<decltype(zero)>) return;  // widened above
    T* p = static_cast<T*>(sorted->mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      bool same = kept > 0 && p[kept - 1] == p[i];
      if constexpr (std::is_floating_point<T>::value) {
        same = same || (kept > 0 && std::isnan(p[kept - 1]) && std::isnan(p[i]));
      }
      if (same) {
        ++counts.back();
      } else {
        p[kept++] = p[i];
        counts.push_back(1);
      }
    }
  });
  auto values = empty({kept}, t.dtype(), allocator);
  if (!values.ok()) return values.status();
  if (kept > 0) {
    std::memcpy(values->mutable_data(), sorted->data(),
                static_cast<size_t>(kept) * t.itemsize());
  }
  auto c = empty({kept}, DType::kInt64, allocator);
  if (!c.ok()) return c.status();
  if (kept > 0) {
    std::memcpy(c->mutable_data(), counts.data(),
                static_cast<size_t>(kept) * sizeof(int64_t));
  }
  return UniqueResult{*std::move(values), *std::move(c)};
}

absl::StatusOr<Tensor> searchsorted(const Tensor& a, const Tensor& v,
                                    Side side, Allocator* allocator) {
  if (!a.valid() || !v.valid()) {
    return absl::InvalidArgumentError("searchsorted: empty handle");
  }
  if (a.ndim() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "searchsorted: a must be 1-D, got shape %s", ShapeString(a.shape())));
  }
  DType common = ResultType(a.dtype(), v.dtype());
  // float16 searches its exact float32 values.
  if (common == DType::kFloat16) common = DType::kFloat32;
  auto ac = astype(a, common);
  if (!ac.ok()) return ac.status();
  auto vc = astype(v, common);
  if (!vc.ok()) return vc.status();
  auto out = empty(v.shape(), DType::kInt64, allocator);
  if (!out.ok()) return out.status();
  int64_t* o = static_cast<int64_t*>(out->mutable_data());
  VisitDType(common, [&](auto zero) {
    using T = std::conditional_t<kIsFloat16<decltype(zero)>, float,
                                 decltype(zero)>;  // (never float16: above)
    const T* sorted = static_cast<const T*>(ac->data());
    const T* keys = static_cast<const T*>(vc->data());
    const int64_t n = ac->size();
    for (int64_t i = 0; i < vc->size(); ++i) {
      const T key = keys[i];
      const T* at = side == Side::kLeft
                        ? std::lower_bound(sorted, sorted + n, key, Less<T>)
                        : std::upper_bound(sorted, sorted + n, key, Less<T>);
      o[i] = at - sorted;
    }
  });
  return out;
}

}  // namespace tessera
