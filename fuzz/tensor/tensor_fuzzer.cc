// Copyright 2026 The Tessera Authors.
//
// -----------------------------------------------------------------------------
// File: fuzz/tensor/tensor_fuzzer.cc
// -----------------------------------------------------------------------------
//
// Differential fuzzer of the tensor engine: every tensor the program builds
// is paired with a reference array (`RefArray`: a shape, a dtype and its
// values in C order) computed by the simple scalar code in this file, one
// element at a time in double / 64-bit integer arithmetic and then cast as
// NumPy would. After every op the tensor must have the reference's shape,
// dtype and values, and an op must fail exactly when the reference says
// NumPy raises (shapes that do not broadcast, bool subtract, bitwise ops on
// floats, negative or sign of bool, a bad axis, a slice step of 0, min/max
// over a zero-length axis), with the documented InvalidArgument; the message
// must name what the headers say it names, where the reference knows the
// one reason (the op and dtype, the shapes).
//
// Input: ops, each an opcode byte and its operands, over three tensor slots:
//   kNew slot dtype ndim dims... values...   a C-contiguous tensor
//   kSlice slot axis start stop step         view (steps may be negative or 0)
//   kTranspose slot perm...                  view
//   kBroadcastTo slot extra-axes dims...     view (read-only)
//   kExpandDims / kSqueeze slot axis         view
//   kBinary op x y out                       out = op(x, y), broadcasting:
//                                            arithmetic, maximum/minimum,
//                                            fmax/fmin, bitwise, logical,
//                                            comparisons
//   kReduce op slot axis keepdims out        out = op(slot, axis)
//   kUnary op x out                          out = op(x) (tensor/unary.h)
//   kWhere cond x y out                      out = where(cond, x, y)
//   kClip a lo hi out                        out = clip(a, lo, hi)
//   kNpyRoundTrip x out                      out = ParseNpy(SerializeNpy(x))
//                                            (tensor/npy.h: any layout)
//   kSort which x axis out                   out = sort / argsort(x, axis)
//                                            (tensor/sort.h; NaN last)
//   kConcatenate x y axis out                out = concatenate({x, y}, axis)
//                                            (tensor/join.h; promotes)
// and, in internal/shape_index_steps.inc (checked against
// internal/reference_shapes.inc):
//   kStack which x y [axis] out              stack / hstack / vstack
//   kSplit which x axis sections|indices pick out
//                                            split (count or indices) /
//                                            array_split; every part checked
//   kTile x reps... out, kRepeat x axis repeats... out,
//   kPad x pairs... value out                tile / repeat / pad (constant)
//   kPartition arg x axis kth... out         partition / argpartition
//                                            (checked by its invariants)
//   kUnique x out                            unique values and counts
//   kSearchsorted flags a v out              searchsorted (a sorted first
//                                            or not), left / right
//   kScan which x axis|n,axis out            cumsum / cumprod / diff
//   kTake mode x axis indices out            take, N-d index arrays
//   kPut mode x indices values out           put (into a copy)
//   kMaskedSelect x mask out                 x[mask]
//   kMaskedAssign x mask kind values out     x[mask] = v (into a copy)
//   kCompress x axis cond out                compress
//   kNonzero which x pick out                nonzero / where(c) / argwhere
//   kExpandDimsTuple / kSqueezeTuple slot axes...   views
// Bad operands are decoded on purpose (axes, kths and indices out of range,
// negative counts and widths, masks and shapes that do not fit, float index
// arrays); opcodes are only ever appended, so that seeds keep their meaning.
// Extending: a new binary op is one row of `kBinaryOps` (its reference as a
// function of two doubles / two 64-bit integers / two bools, or of the order
// of its operands); a new unary op one row of `kUnaryOps`; a new reduction
// one row of `kReductions`. Rows are only ever appended, so that the seeds
// and dictionary keep their meaning.
//
// Float comparisons: elementwise arithmetic is exact (an IEEE float32 op
// equals the double op rounded to float32, and both sides convert the same
// way), as are sqrt, floor, ceil, negative, abs, sign and square, which must
// also agree in the sign of a zero; exp, log, sin, cos and tanh are computed
// with the std:: function of the result's precision and compared within the
// 4 ulp (sin/cos below 1: 4 eps absolute) that tensor/kernels/unary_test.cc
// allows; sums and means are compared with a bound on the rounding of any
// summation order, because the engine sums pairwise. NaN matches NaN;
// elsewhere -0 matches +0.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "fuzz/byte_reader.h"
#include "fuzz/fuzz_check.h"
#include "tensor/binary.h"
#include "tensor/dtype.h"
#include "tensor/indexing.h"
#include "tensor/join.h"
#include "tensor/npy.h"
#include "tensor/partition.h"
#include "tensor/reduce.h"
#include "tensor/scalar.h"
#include "tensor/scan.h"
#include "tensor/sort.h"
#include "tensor/tensor.h"
#include "tensor/ternary.h"
#include "tensor/unary.h"
#include "tensor/view.h"

namespace tessera {
namespace {

using fuzzing::ByteReader;

// The scalar reference, in three parts (one translation unit).
#define TESSERA_FUZZ_TENSOR_FUZZER_PARTS_
#include "fuzz/tensor/internal/reference_scalars.inc"
#include "fuzz/tensor/internal/reference_ops.inc"
#include "fuzz/tensor/internal/reference_shapes.inc"

// ---- The program. ----

enum class Op : uint8_t {
  kNew,
  kSlice,
  kTranspose,
  kBroadcastTo,
  kExpandDims,
  kSqueeze,
  kBinary,
  kReduce,
  kUnary,
  kWhere,
  kClip,
  kNpyRoundTrip,
  kSort,
  kConcatenate,
  // internal/shape_index_steps.inc
  kStack,
  kSplit,
  kTile,
  kRepeat,
  kPad,
  kPartition,
  kUnique,
  kSearchsorted,
  kScan,
  kTake,
  kPut,
  kMaskedSelect,
  kMaskedAssign,
  kCompress,
  kNonzero,
  kExpandDimsTuple,
  kSqueezeTuple,
  kNumOps,
};

struct Slot {
  Tensor tensor;
  RefArray ref;
  bool valid = false;
};

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in) {}

  void Run() {
    for (size_t ops = 0; ops < kMaxOps && !in_.empty(); ++ops) {
      switch (static_cast<Op>(in_.ConsumeIntegralInRange<int>(
          0, static_cast<int>(Op::kNumOps) - 1))) {
        case Op::kNew: New(); break;
        case Op::kSlice: SliceOp(); break;
        case Op::kTranspose: Transpose(); break;
        case Op::kBroadcastTo: BroadcastTo(); break;
        case Op::kExpandDims: ExpandDims(); break;
        case Op::kSqueeze: Squeeze(); break;
        case Op::kBinary: BinaryOpStep(); break;
        case Op::kReduce: ReduceStep(); break;
        case Op::kUnary: UnaryStep(); break;
        case Op::kWhere: TernaryStep(/*is_clip=*/false); break;
        case Op::kClip: TernaryStep(/*is_clip=*/true); break;
        case Op::kNpyRoundTrip: NpyRoundTrip(); break;
        case Op::kSort: SortStep(); break;
        case Op::kConcatenate: ConcatenateStep(); break;
        case Op::kStack: StackStep(); break;
        case Op::kSplit: SplitStep(); break;
        case Op::kTile: TileStep(); break;
        case Op::kRepeat: RepeatStep(); break;
        case Op::kPad: PadStep(); break;
        case Op::kPartition: PartitionStep(); break;
        case Op::kUnique: UniqueStep(); break;
        case Op::kSearchsorted: SearchsortedStep(); break;
        case Op::kScan: ScanStep(); break;
        case Op::kTake: TakeStep(); break;
        case Op::kPut: PutStep(); break;
        case Op::kMaskedSelect: MaskedSelectStep(); break;
        case Op::kMaskedAssign: MaskedAssignStep(); break;
        case Op::kCompress: CompressStep(); break;
        case Op::kNonzero: NonzeroStep(); break;
        case Op::kExpandDimsTuple: ExpandDimsTupleStep(); break;
        case Op::kSqueezeTuple:
        case Op::kNumOps: SqueezeTupleStep(); break;
      }
    }
    // Views must still read their (shared) storage correctly at the end.
    for (const Slot& s : slots_) {
      if (s.valid) CheckMatches(s.tensor, s.ref, "at the end");
    }
  }

 private:
  Slot& PickSlot() { return slots_[in_.ConsumeIntegralInRange<int>(0, kSlots - 1)]; }

  // A slot holding a tensor; a fresh 0-d float64 one if it was empty.
  Slot& PickFilledSlot() {
    Slot& s = PickSlot();
    if (!s.valid) {
      absl::StatusOr<Tensor> t = zeros({}, DType::kFloat64);
      TESSERA_FUZZ_CHECK(t.ok(), "zeros(()): %s", t.status().ToString().c_str());
      s.tensor = *std::move(t);
      s.ref = RefArray();
      s.ref.data.resize(1);
      s.valid = true;
    }
    return s;
  }

  // Element values: small numbers most of the time, the dtype's extremes
  // (for wrap-around) and non-finite floats otherwise.
  Num DecodeValue(DType d) {
    const uint8_t b = in_.ConsumeByte();
    Num n;
    const int small = static_cast<int>(b % 17) - 8;  // -8..8
    if (IsBool(d)) {
      n.i = b & 1;
    } else if (IsFloat(d)) {
      switch (b >> 5) {
        case 6:
          n.f = (b & 3) == 0 ? std::nan("")
              : (b & 3) == 1 ? HUGE_VAL
              : (b & 3) == 2 ? -HUGE_VAL : -0.0;
          break;
        case 7:
          n.f = small * 0.25;  // exact in float32
          break;
        default:
          n.f = small;
      }
    } else if ((b >> 5) == 7) {
      // Extremes: min, max, min + 1, max - 1.
      const int bits = Bits(d);
      const uint64_t max = IsSignedInt(d) ? (uint64_t{1} << (bits - 1)) - 1
                           : bits == 64   ? ~uint64_t{0}
                                          : (uint64_t{1} << bits) - 1;
      const uint64_t min = IsSignedInt(d) ? ~max : 0;
      switch (b & 3) {
        case 0: n.i = min; break;
        case 1: n.i = max; break;
        case 2: n.i = min + 1; break;
        default: n.i = max - 1;
      }
    } else {
      n.i = Normalize(static_cast<uint64_t>(static_cast<int64_t>(
                          IsUnsignedInt(d) ? std::abs(small) : small)),
                      d);
    }
    return n;
  }

  void New() {
    Slot& s = PickSlot();
    RefArray ref;
    ref.dtype = kAllDTypes[in_.ConsumeIntegralInRange<int>(0, kNumDTypes - 1)];
    const int ndim = in_.ConsumeIntegralInRange<int>(0, kMaxNdim);
    for (int k = 0; k < ndim; ++k) {
      ref.shape.push_back(in_.ConsumeIntegralInRange<int64_t>(0, kMaxExtent));
    }
    const int64_t n = Count(ref.shape);
    absl::StatusOr<Tensor> t = empty(ref.shape, ref.dtype);
    TESSERA_FUZZ_CHECK(t.ok(), "empty(%s): %s", ShapeStr(ref.shape).c_str(),
                       t.status().ToString().c_str());
    char* p = static_cast<char*>(t->mutable_data());
    const size_t itemsize = DTypeSize(ref.dtype);
    for (int64_t i = 0; i < n; ++i) {
      const Num v = DecodeValue(ref.dtype);
      ref.data.push_back(v);
      char* dst = p + static_cast<size_t>(i) * itemsize;
      if (ref.dtype == DType::kFloat32) {
        const float f = static_cast<float>(v.f);
        std::memcpy(dst, &f, sizeof(f));
      } else if (ref.dtype == DType::kFloat64) {
        std::memcpy(dst, &v.f, sizeof(v.f));
      } else if (ref.dtype == DType::kFloat16) {
        const Float16 h = ToFloat16(v.f);  // the decoded values are exact
        std::memcpy(dst, &h, sizeof(h));
      } else {
        std::memcpy(dst, &v.i, itemsize);  // little-endian
      }
    }
    s.tensor = *std::move(t);
    s.ref = std::move(ref);
    s.valid = true;
    CheckMatches(s.tensor, s.ref, "new tensor");
  }

  // Stores an op's result (or checks that both sides rejected it: every
  // documented error of these ops is InvalidArgument, and its message names
  // `error_names`).
  void Store(Slot& s, absl::StatusOr<Tensor> got, std::optional<RefArray> want,
             const char* what, const std::vector<double>* tolerance = nullptr,
             const std::vector<std::string>& error_names = {},
             bool zero_sign = false) {
    TESSERA_FUZZ_CHECK(got.ok() == want.has_value(),
                       "%s: engine says %s, reference says %s", what,
                       got.ok() ? "OK" : got.status().ToString().c_str(),
                       want ? "OK" : "error");
    if (!got.ok()) {
      TESSERA_FUZZ_CHECK(absl::IsInvalidArgument(got.status()) &&
                             !got.status().message().empty(),
                         "%s: error %s is not a documented InvalidArgument",
                         what, got.status().ToString().c_str());
      for (const std::string& name : error_names) {
        TESSERA_FUZZ_CHECK(absl::StrContains(got.status().message(), name),
                           "%s: error '%s' does not name '%s'", what,
                           std::string(got.status().message()).c_str(),
                           name.c_str());
      }
      return;
    }
    std::vector<Num> values =
        CheckMatches(*got, *want, what, tolerance, zero_sign);
    if (Count(want->shape) > kMaxElements) return;
    s.tensor = *std::move(got);
    s.ref = *std::move(want);
    // Within tolerance is not equal: later ops start from the engine's
    // values, so that their references can be exact again.
    if (tolerance != nullptr) s.ref.data = std::move(values);
    s.valid = true;
  }

  std::optional<int64_t> DecodeBound() {
    const int v = in_.ConsumeIntegralInRange<int>(0, 16);
    if (v == 16) return std::nullopt;
    return v - 8;  // -8..7: past both ends of a 5-long axis
  }

  void SliceOp() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    // Axis in [-ndim-1, ndim]: out-of-range axes must be rejected.
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    const std::optional<int64_t> start = DecodeBound();
    const std::optional<int64_t> stop = DecodeBound();
    const int64_t step = in_.ConsumeIntegralInRange<int64_t>(-3, 3);
    std::optional<RefArray> want;
    if (axis >= -ndim && axis < ndim && step != 0) {
      const size_t a = static_cast<size_t>(axis < 0 ? axis + ndim : axis);
      const std::vector<int64_t> picked =
          SliceIndices(start, stop, step, s.ref.shape[a]);
      std::vector<int64_t> shape = s.ref.shape;
      shape[a] = static_cast<int64_t>(picked.size());
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> src = index;
        src[a] = picked[static_cast<size_t>(index[a])];
        return Flat(t.shape, src);
      });
    }
    Store(s, slice(s.tensor, axis, Slice(start, stop, step)), std::move(want),
          "slice");
  }

  void Transpose() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    std::vector<int> perm(static_cast<size_t>(ndim));
    for (int k = 0; k < ndim; ++k) perm[static_cast<size_t>(k)] = k;
    // Fisher-Yates from the input; one more byte may repeat an axis (error).
    for (int k = ndim - 1; k > 0; --k) {
      std::swap(perm[static_cast<size_t>(k)],
                perm[static_cast<size_t>(in_.ConsumeIntegralInRange<int>(0, k))]);
    }
    const bool broken = ndim >= 2 && in_.ConsumeIntegralInRange<int>(0, 7) == 0;
    if (broken) perm[0] = perm[1];
    std::optional<RefArray> want;
    if (!broken) {
      std::vector<int64_t> shape;
      for (int p : perm) shape.push_back(s.ref.shape[static_cast<size_t>(p)]);
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        std::vector<int64_t> src(index.size());
        for (size_t k = 0; k < index.size(); ++k) {
          src[static_cast<size_t>(perm[k])] = index[k];
        }
        return Flat(t.shape, src);
      });
    }
    Store(s, transpose(s.tensor, perm), std::move(want), "transpose");
  }

  void BroadcastTo() {
    Slot& s = PickFilledSlot();
    const int extra = in_.ConsumeIntegralInRange<int>(0, 2);
    std::vector<int64_t> shape;
    for (int k = 0; k < extra; ++k) {
      shape.push_back(in_.ConsumeIntegralInRange<int64_t>(0, 3));
    }
    for (int64_t d : s.ref.shape) {
      // Mostly the same extent; an extent-1 axis may grow; anything else
      // may become wrong (error).
      const int choice = in_.ConsumeIntegralInRange<int>(0, 7);
      shape.push_back(choice < 5 ? d : choice == 7 ? d + 1 : choice - 4);
    }
    std::optional<RefArray> want;
    bool ok = true;
    const size_t lead = shape.size() - s.ref.shape.size();
    for (size_t k = 0; k < s.ref.shape.size(); ++k) {
      if (s.ref.shape[k] != 1 && s.ref.shape[k] != shape[lead + k]) ok = false;
    }
    if (ok) {
      const RefArray& t = s.ref;
      want = Gather(t, shape, [&](const std::vector<int64_t>& index) {
        return BroadcastSource(t.shape, index);
      });
    }
    Store(s, broadcast_to(s.tensor, shape), std::move(want), "broadcast_to");
  }

  void ExpandDims() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    // The result has ndim + 1 axes: axis in [-(ndim+1), ndim] is valid.
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 2, ndim + 1);
    std::optional<RefArray> want;
    if (axis >= -ndim - 1 && axis <= ndim && ndim < kMaxNdim + 2) {
      const int a = axis < 0 ? axis + ndim + 1 : axis;
      RefArray r = s.ref;
      r.shape.insert(r.shape.begin() + a, 1);
      want = std::move(r);
    } else if (ndim >= kMaxNdim + 2) {
      return;  // keep shapes small
    }
    Store(s, expand_dims(s.tensor, axis), std::move(want), "expand_dims");
  }

  void Squeeze() {
    Slot& s = PickFilledSlot();
    const int ndim = static_cast<int>(s.ref.shape.size());
    const int choice = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim + 1);
    std::optional<int> axis;
    if (choice != ndim + 1) axis = choice;
    RefArray r = s.ref;
    std::optional<RefArray> want;
    if (!axis) {
      r.shape.erase(std::remove(r.shape.begin(), r.shape.end(), 1),
                    r.shape.end());
      want = std::move(r);
    } else if (*axis >= -ndim && *axis < ndim) {
      const int a = *axis < 0 ? *axis + ndim : *axis;
      if (r.shape[static_cast<size_t>(a)] == 1) {
        r.shape.erase(r.shape.begin() + a);
        want = std::move(r);
      }
    }
    Store(s, squeeze(s.tensor, axis), std::move(want), "squeeze");
  }

  // A view of any layout written as .npy and read back: the values must be
  // the reference's, and writing the loaded tensor must give the same bytes.
  void NpyRoundTrip() {
    const Slot& x = PickFilledSlot();
    Slot& out = PickSlot();
    absl::StatusOr<std::string> bytes = SerializeNpy(x.tensor);
    TESSERA_FUZZ_CHECK(bytes.ok(), "SerializeNpy(%s): %s",
                       x.tensor.DebugString().c_str(),
                       bytes.status().ToString().c_str());
    absl::StatusOr<Tensor> back = ParseNpy(*bytes);
    TESSERA_FUZZ_CHECK(back.ok(), "ParseNpy of SerializeNpy(%s): %s",
                       x.tensor.DebugString().c_str(),
                       back.status().ToString().c_str());
    absl::StatusOr<std::string> again = SerializeNpy(*back);
    TESSERA_FUZZ_CHECK(again.ok() && *again == *bytes,
                       "SerializeNpy of the loaded %s differs",
                       x.tensor.DebugString().c_str());
    Store(out, std::move(back), x.ref, "npy round trip");
  }

  // sort or argsort along an axis in [-ndim-1, ndim] (the ends are errors,
  // as is any axis of a 0-d tensor). The reference is a stable sort of each
  // lane; the engine's argsort is stable too, and sort's values are equal
  // under -0 == +0.
  void SortStep() {
    const bool arg = in_.ConsumeByte() & 1;
    const Slot& x = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    Slot& out = PickSlot();
    absl::StatusOr<Tensor> got = arg ? argsort(x.tensor, axis)
                                     : sort(x.tensor, axis);
    std::optional<RefArray> want;
    if (axis >= -ndim && axis < ndim) {
      const int a = axis < 0 ? axis + ndim : axis;
      const std::vector<int64_t>& shape = x.ref.shape;
      int64_t inner = 1;
      for (int k = a + 1; k < ndim; ++k) inner *= shape[k];
      const int64_t n = shape[a];
      // A zero-length axis after `a` makes inner 0: no lanes, not a division.
      const int64_t outer =
          n == 0 || inner == 0 ? 0 : Count(shape) / (n * inner);
      RefArray r = x.ref;
      if (arg) r.dtype = DType::kInt64;
      std::vector<int64_t> lane(static_cast<size_t>(n));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
          const int64_t base = o * n * inner + in;
          for (int64_t k = 0; k < n; ++k) lane[k] = k;
          std::stable_sort(lane.begin(), lane.end(), [&](int64_t p, int64_t q) {
            return RefLess(x.ref.data[base + p * inner],
                           x.ref.data[base + q * inner], x.ref.dtype);
          });
          for (int64_t k = 0; k < n; ++k) {
            Num v;
            if (arg) {
              v.i = static_cast<uint64_t>(lane[k]);
            } else {
              v = x.ref.data[base + lane[k] * inner];
            }
            r.data[base + k * inner] = v;
          }
        }
      }
      want = std::move(r);
    }
    Store(out, std::move(got), std::move(want), arg ? "argsort" : "sort", nullptr,
          {"axis"});
  }

  // concatenate({x, y}, axis): same ndim >= 1, equal extents off the axis;
  // the result has ResultType(x, y) and each input converted.
  void ConcatenateStep() {
    const Slot& x = PickFilledSlot();
    const Slot& y = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int axis = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim);
    Slot& out = PickSlot();
    absl::StatusOr<Tensor> got = concatenate({x.tensor, y.tensor}, axis);
    Store(out, std::move(got), RefConcatenate(x.ref, y.ref, axis),
          "concatenate");
  }

  void BinaryOpStep() {
    const BinaryOpSpec& spec =
        kBinaryOps[in_.ConsumeIntegralInRange<int>(0, kNumBinaryOps - 1)];
    const Slot& x = PickFilledSlot();
    const Slot& y = PickFilledSlot();
    Slot& out = PickSlot();
    RefResult want = RefBinary(spec, x.ref, y.ref);
    absl::StatusOr<Tensor> got = Binary(spec.op, x.tensor, y.tensor);
    Store(out, std::move(got), std::move(want.array), spec.name, nullptr,
          want.error_names);
  }

  void UnaryStep() {
    const UnaryOpSpec& spec =
        kUnaryOps[in_.ConsumeIntegralInRange<int>(0, kNumUnaryOps - 1)];
    const Slot& x = PickFilledSlot();
    Slot& out = PickSlot();
    UnaryRef want = RefUnary(spec, x.ref);
    absl::StatusOr<Tensor> got = Unary(spec.op, x.tensor);
    // Math results within tolerance are stored as the engine computed them.
    const bool any_tolerance =
        std::any_of(want.tolerance.begin(), want.tolerance.end(),
                    [](double t) { return t > 0; });
    Store(out, std::move(got), std::move(want.result.array), spec.name,
          any_tolerance ? &want.tolerance : nullptr, want.result.error_names,
          want.zero_sign);
  }

  // where(cond, x, y) or clip(a, lo, hi): three tensors broadcast together.
  void TernaryStep(bool is_clip) {
    const Slot& a = PickFilledSlot();
    const Slot& b = PickFilledSlot();
    const Slot& c = PickFilledSlot();
    Slot& out = PickSlot();
    RefResult want = is_clip ? RefClip(a.ref, b.ref, c.ref)
                             : RefWhere(a.ref, b.ref, c.ref);
    absl::StatusOr<Tensor> got = is_clip ? clip(a.tensor, b.tensor, c.tensor)
                                         : where(a.tensor, b.tensor, c.tensor);
    Store(out, std::move(got), std::move(want.array),
          is_clip ? "clip" : "where", nullptr, want.error_names);
  }

  void ReduceStep() {
    const ReductionSpec& spec =
        kReductions[in_.ConsumeIntegralInRange<int>(0, kNumReductions - 1)];
    const Slot& x = PickFilledSlot();
    const int ndim = static_cast<int>(x.ref.shape.size());
    const int choice = in_.ConsumeIntegralInRange<int>(-ndim - 1, ndim + 1);
    std::optional<int> axis;
    if (choice != ndim + 1) axis = choice;
    const bool keepdims = in_.ConsumeBool();
    Slot& out = PickSlot();
    std::optional<Reduced> want = RefReduction(spec.kind, x.ref, axis, keepdims);
    absl::StatusOr<Tensor> got = RunReduction(spec.kind, x.tensor, axis, keepdims);
    if (!want) {
      Store(out, std::move(got), std::nullopt, spec.name);
      return;
    }
    Store(out, std::move(got), std::move(want->array), spec.name,
          &want->tolerance);
  }

  // The steps of internal/shape_index_steps.inc and their operands.
  std::optional<int> DecodeOptionalAxis(int ndim);
  RefArray DecodeIndices();
  RefArray DecodeMask(const RefArray& t);
  RefArray DecodeValues(DType x_dtype, std::vector<int64_t> shape);
  void StackStep();
  void SplitStep();
  void TileStep();
  void RepeatStep();
  void PadStep();
  void PartitionStep();
  void UniqueStep();
  void SearchsortedStep();
  void ScanStep();
  void TakeStep();
  void PutStep();
  void MaskedSelectStep();
  void MaskedAssignStep();
  void CompressStep();
  void NonzeroStep();
  void ExpandDimsTupleStep();
  void SqueezeTupleStep();

  ByteReader& in_;
  Slot slots_[kSlots];
};

#include "fuzz/tensor/internal/shape_index_steps.inc"
#undef TESSERA_FUZZ_TENSOR_FUZZER_PARTS_

}  // namespace
}  // namespace tessera

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tessera::fuzzing::ByteReader reader(data, size);
  tessera::Harness(reader).Run();
  return 0;
}
