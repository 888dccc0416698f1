# Copyright 2026 The Tessera Authors.
"""Seeds of the tensor engine's differential fuzzer (fuzz/tensor)."""

from seeds.encoding import in_range


# ---- fuzz/tensor/tensor_fuzzer.cc ----

class TensorProgram:
    """Encoder for the tensor harness's input language. Tracks each slot's
    ndim, because axis operands are read in ranges that depend on it."""

    (NEW, SLICE, TRANSPOSE, BROADCAST_TO, EXPAND_DIMS, SQUEEZE, BINARY,
     REDUCE, UNARY, WHERE, CLIP, NPY_ROUND_TRIP, SORT, CONCATENATE,
     STACK, SPLIT, TILE, REPEAT, PAD, PARTITION, UNIQUE, SEARCHSORTED, SCAN,
     TAKE, PUT, MASKED_SELECT, MASKED_ASSIGN, COMPRESS, NONZERO,
     EXPAND_DIMS_TUPLE, SQUEEZE_TUPLE, NUM_OPS) = range(32)
    # Index array dtypes of DecodeIndices (kIndexDTypes).
    (IX_INT64, IX_INT8, IX_INT32, IX_UINT8, IX_UINT64, IX_BOOL, IX_INT16,
     IX_FLOAT32) = range(8)
    RAISE, WRAP, CLIP_MODE = range(3)
    FLOAT16 = 11
    (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FLOAT32,
     FLOAT64) = range(11)
    # kBinaryOps rows.
    (ADD, SUBTRACT, MULTIPLY, DIVIDE, MAXIMUM, MINIMUM, FMAX, FMIN,
     BITWISE_AND, BITWISE_OR, BITWISE_XOR, LOGICAL_AND, LOGICAL_OR,
     LOGICAL_XOR, EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER,
     GREATER_EQUAL, NUM_BINARY) = range(21)
    # kUnaryOps rows.
    (NEGATIVE, ABS, SIGN, SQUARE, SQRT, EXP, LOG, SIN, COS, TANH, FLOOR, CEIL,
     ISNAN, ISFINITE, LOGICAL_NOT, NUM_UNARY) = range(16)
    SUM, MIN, MAX, MEAN = range(4)
    NAN, INF, NEG_INF, NEG_ZERO = 0xC0, 0xC1, 0xC2, 0xC3
    MIN_INT, MAX_INT, MIN_INT_PLUS_1, MAX_INT_MINUS_1 = 0xE0, 0xE1, 0xE2, 0xE3

    def __init__(self):
        self.ndim = [None, None, None]  # None: empty slot (becomes 0-d)
        self.out = b""
        self._last = 0  # the slot a mask is decoded for

    @staticmethod
    def small(v):
        """The value byte of a small number -8..8."""
        return v + 8

    @staticmethod
    def quarter(v):
        """The value byte of v / 4 for a float slot (v in -8..8)."""
        return next(b for b in range(224, 256) if b % 17 == v + 8)

    def _op(self, code):
        self.out += in_range(code, 0, self.NUM_OPS - 1)

    def _filled(self, slot):
        if self.ndim[slot] is None:
            self.ndim[slot] = 0
        self.out += bytes([slot])
        return self.ndim[slot]

    def new(self, slot, dtype, shape, values):
        self._op(self.NEW)
        self.out += bytes([slot, dtype, len(shape)]) + bytes(shape)
        count = 1
        for d in shape:
            count *= d
        values = list(values)
        self.out += bytes(values[i % len(values)] if values else 0
                          for i in range(count))
        self.ndim[slot] = len(shape)
        return self

    def slice(self, slot, axis, start=None, stop=None, step=1, ok=True):
        self._op(self.SLICE)
        n = self._filled(slot)
        bound = lambda v: in_range(16 if v is None else v + 8, 0, 16)
        self.out += in_range(axis, -n - 1, n) + bound(start) + bound(stop) + \
            in_range(step, -3, 3)
        return self

    def transpose(self, slot, swaps=(), broken=False):
        """swaps[j] for k = n-1 down to 1 (Fisher-Yates picks)."""
        self._op(self.TRANSPOSE)
        n = self._filled(slot)
        picks = list(swaps) + [0] * (n - 1 - len(swaps))
        for k, j in zip(range(n - 1, 0, -1), picks):
            self.out += in_range(j, 0, k)
        if n >= 2:
            self.out += bytes([0 if broken else 1])
        return self

    def broadcast_to(self, slot, extra=(), choices=None):
        """choices per axis: 0 keep, 5 -> 1, 6 -> 2, 7 -> extent + 1."""
        self._op(self.BROADCAST_TO)
        n = self._filled(slot)
        self.out += bytes([len(extra)]) + bytes(extra)
        self.out += bytes(choices if choices is not None else [0] * n)
        self.ndim[slot] = n + len(extra)
        return self

    def expand_dims(self, slot, axis):
        self._op(self.EXPAND_DIMS)
        n = self._filled(slot)
        self.out += in_range(axis, -n - 2, n + 1)
        if -n - 1 <= axis <= n:
            self.ndim[slot] = n + 1
        return self

    def squeeze(self, slot, axis=None, new_ndim=None):
        self._op(self.SQUEEZE)
        n = self._filled(slot)
        self.out += in_range(n + 1 if axis is None else axis, -n - 1, n + 1)
        if new_ndim is not None:
            self.ndim[slot] = new_ndim
        return self

    def binary(self, op, x, y, out, result_ndim=None):
        self._op(self.BINARY)
        self.out += bytes([op])
        nx = self._filled(x)
        ny = self._filled(y)
        self.out += bytes([out])
        if result_ndim is not None:
            self.ndim[out] = result_ndim
        elif nx is not None and ny is not None:
            self.ndim[out] = max(nx, ny)
        return self

    def unary(self, op, x, out, ok=True):
        self._op(self.UNARY)
        self.out += in_range(op, 0, self.NUM_UNARY - 1)
        n = self._filled(x)
        self.out += bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def _ternary(self, code, a, b, c, out, result_ndim):
        self._op(code)
        n = max(self._filled(a), self._filled(b), self._filled(c))
        self.out += bytes([out])
        self.ndim[out] = n if result_ndim is None else result_ndim
        return self

    def where(self, cond, x, y, out, result_ndim=None):
        """result_ndim: for a failed op, the ndim `out` keeps."""
        return self._ternary(self.WHERE, cond, x, y, out, result_ndim)

    def clip(self, a, lo, hi, out, result_ndim=None):
        return self._ternary(self.CLIP, a, lo, hi, out, result_ndim)

    def npy_round_trip(self, x, out):
        self._op(self.NPY_ROUND_TRIP)
        n = self._filled(x)
        self.out += bytes([out])
        self.ndim[out] = n
        return self

    def sort(self, x, axis, out, arg=False, ok=True):
        self._op(self.SORT)
        self.out += bytes([int(arg)])
        n = self._filled(x)
        self.out += in_range(axis, -n - 1, n) + bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def concatenate(self, x, y, axis, out, ok=True):
        self._op(self.CONCATENATE)
        n = self._filled(x)
        self._filled(y)
        self.out += in_range(axis, -n - 1, n) + bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    # ---- The opcodes of internal/shape_index_steps.inc. ----
    # `ndim_out`: the ndim the output slot gets (None: unchanged, for an
    # expected error or when the caller does not use it again).

    def _set(self, slot, ndim):
        if ndim is not None:
            self.ndim[slot] = ndim

    def _opt_axis(self, n, axis):
        """DecodeOptionalAxis: None is axis=None (flattened)."""
        return in_range(n + 1 if axis is None else axis, -n - 1, n + 1)

    @staticmethod
    def index_byte(v):
        """The value byte of index v in [-7, 7]."""
        return v + 7

    def _indices(self, dtype, shape, values):
        self.out += in_range(dtype, 0, 7) + in_range(len(shape), 0, 2)
        self.out += b"".join(in_range(d, 0, 3) for d in shape)
        count = 1
        for d in shape:
            count *= d
        self.out += bytes(self.index_byte(values[i % len(values)])
                          for i in range(count))

    def stack(self, which, x, y, out, axis=0, ndim_out=None):
        self._op(self.STACK)
        self.out += in_range(which, 0, 2)
        n = self._filled(x)
        self._filled(y)
        if which == 0:
            self.out += in_range(axis, -n - 2, n + 1)
        self.out += bytes([out])
        self._set(out, ndim_out)
        return self

    def split(self, which, x, axis, out, sections=2, indices=(), pick=0,
              ok=True):
        self._op(self.SPLIT)
        self.out += in_range(which, 0, 2)
        n = self._filled(x)
        self.out += in_range(axis, -n - 1, n)
        if which == 1:
            self.out += in_range(len(indices), 0, 3)
            self.out += b"".join(in_range(i, -7, 7) for i in indices)
        else:
            self.out += in_range(sections, -1, 6)
        self.out += bytes([pick, out])
        if ok:
            self.ndim[out] = n
        return self

    def tile(self, x, reps, out, ndim_out=None):
        self._op(self.TILE)
        self._filled(x)
        self.out += in_range(len(reps), 0, 3)
        self.out += b"".join(in_range(r, -1, 3) for r in reps) + bytes([out])
        self._set(out, ndim_out)
        return self

    def repeat(self, x, axis, length_choice, repeats, out, ndim_out=None):
        """length_choice: 0 one count, 1 the extent, 2 extent + 1, 3 none;
        `repeats` must have that many entries."""
        self._op(self.REPEAT)
        n = self._filled(x)
        self.out += self._opt_axis(n, axis) + in_range(length_choice, 0, 3)
        self.out += b"".join(in_range(r, -1, 3) for r in repeats)
        self.out += bytes([out])
        self._set(out, ndim_out)
        return self

    def pad(self, x, choice, pairs, value, out, ok=True):
        """choice: 0 one pair, 1 one per axis, 2 one too many, 3 none."""
        self._op(self.PAD)
        n = self._filled(x)
        self.out += in_range(choice, 0, 3)
        for before, after in pairs:
            self.out += in_range(before, -1, 3) + in_range(after, -1, 3)
        self.out += in_range(value, 0, 5) + bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def partition(self, x, axis, kth, out, arg=False, ok=True):
        self._op(self.PARTITION)
        self.out += bytes([int(arg)])
        n = self._filled(x)
        self.out += self._opt_axis(n, axis) + in_range(len(kth), 0, 2)
        self.out += b"".join(in_range(k, -6, 6) for k in kth) + bytes([out])
        if ok:
            self.ndim[out] = 1 if axis is None else n
        return self

    def unique(self, x, out):
        self._op(self.UNIQUE)
        self._filled(x)
        self.out += bytes([out])
        self.ndim[out] = 1
        return self

    def searchsorted(self, a, v, out, right=False, sort_first=True, ok=True):
        self._op(self.SEARCHSORTED)
        self.out += bytes([int(right) | (2 if sort_first else 0)])
        self._filled(a)
        n = self._filled(v)
        self.out += bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def scan(self, which, x, out, axis=None, n=1, ndim_out=None):
        """which: 0 cumsum, 1 cumprod (axis may be None), 2 diff (n, axis)."""
        self._op(self.SCAN)
        self.out += in_range(which, 0, 2)
        nd = self._filled(x)
        if which < 2:
            self.out += self._opt_axis(nd, axis)
        else:
            self.out += in_range(n, -1, 3) + in_range(axis, -nd - 1, nd)
        self.out += bytes([out])
        self._set(out, ndim_out)
        return self

    def take(self, mode, x, axis, idx_dtype, idx_shape, idx_values, out,
             ndim_out=None):
        self._op(self.TAKE)
        self.out += in_range(mode, 0, 2)
        n = self._filled(x)
        self.out += self._opt_axis(n, axis)
        self._indices(idx_dtype, idx_shape, idx_values)
        self.out += bytes([out])
        self._set(out, ndim_out)
        return self

    def put(self, mode, x, idx_dtype, idx_shape, idx_values, values, out,
            int64_values=False, ok=True):
        """`values`: value bytes (small(), quarter(), ...), at most 3."""
        self._op(self.PUT)
        self.out += in_range(mode, 0, 2)
        n = self._filled(x)
        self._indices(idx_dtype, idx_shape, idx_values)
        self.out += in_range(len(values), 0, 3) + bytes([int(int64_values)])
        self.out += bytes(values) + bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def _mask(self, k, flaw, bits):
        """A mask over the first k axes; flaw 0 none, 5 one extent + 1,
        6 int8, 7 one axis more. `bits`: one byte per mask element."""
        n = self.ndim[self._last]
        self.out += in_range(k, 0, n) + in_range(flaw, 0, 7) + bytes(bits)

    def masked_select(self, x, k, bits, out, flaw=0, ok=True):
        self._op(self.MASKED_SELECT)
        n = self._filled(x)
        self._last = x
        self._mask(k, flaw, bits)
        self.out += bytes([out])
        if ok:
            self.ndim[out] = n - k + 1
        return self

    def masked_assign(self, x, k, bits, kind, values, out, flaw=0,
                      int64_values=False, ok=True):
        """kind: 0 a scalar (values = [v in 0..5]), 1 one value, 2 a row,
        3 the selection, 4 one value too many, 5 0-d; `values`: the value
        bytes of the values tensor (as many as its shape holds)."""
        self._op(self.MASKED_ASSIGN)
        n = self._filled(x)
        self._last = x
        self._mask(k, flaw, bits)
        self.out += in_range(kind, 0, 5)
        if kind == 0:
            self.out += in_range(values[0], 0, 5)
        else:
            self.out += bytes([int(int64_values)]) + bytes(values)
        self.out += bytes([out])
        if ok:
            self.ndim[out] = n
        return self

    def compress(self, x, axis, cond, out, int8=False, two_d=False, ok=True):
        """`cond`: the condition's value bytes (bool: b & 1; int8: b % 3 - 1)."""
        self._op(self.COMPRESS)
        n = self._filled(x)
        self.out += self._opt_axis(n, axis)
        self.out += bytes([int(int8) | (6 if two_d else 0)])
        self.out += in_range(len(cond), 0, 7) + bytes(cond) + bytes([out])
        if ok:
            self.ndim[out] = 1 if axis is None else n
        return self

    def nonzero(self, which, x, out, pick=0):
        """which: 0 nonzero, 1 where(condition), 2 argwhere."""
        self._op(self.NONZERO)
        self.out += in_range(which, 0, 2)
        self._filled(x)
        self.out += bytes([pick, out])
        self.ndim[out] = 2 if which == 2 else 1
        return self

    def expand_dims_tuple(self, slot, axes, ok=True):
        self._op(self.EXPAND_DIMS_TUPLE)
        n = self._filled(slot)
        c = len(axes)
        self.out += in_range(c, 0, 3)
        self.out += b"".join(in_range(a, -n - c - 1, n + c) for a in axes)
        if ok:
            self.ndim[slot] = n + c
        return self

    def squeeze_tuple(self, slot, axes, ok=True):
        self._op(self.SQUEEZE_TUPLE)
        n = self._filled(slot)
        self.out += in_range(len(axes), 0, 3)
        self.out += b"".join(in_range(a, -n - 1, n) for a in axes)
        if ok:
            self.ndim[slot] = n - len(axes)
        return self

    def reduce(self, op, slot, axis=None, keepdims=False, out=2, ok=True):
        self._op(self.REDUCE)
        self.out += bytes([op])
        n = self._filled(slot)
        self.out += in_range(n + 1 if axis is None else axis, -n - 1, n + 1)
        self.out += bytes([int(keepdims), out])
        if ok:
            self.ndim[out] = n if keepdims else (0 if axis is None else n - 1)
        return self


def tensor_seeds():
    T = TensorProgram
    seeds = {}
    ints = [T.small(v) for v in (-3, 5, 0, 7, -8, 2)] + [T.MAX_INT, T.MIN_INT]
    floats = [T.small(3), T.quarter(-5), T.small(0), T.small(-2), T.quarter(6)]

    p = T()
    p.new(0, T.INT8, [2, 4], ints).new(1, T.UINT8, [4], ints)
    for op in range(6):
        p.binary(op, 0, 1, 2)
    p.new(0, T.FLOAT32, [3, 1], floats).new(1, T.INT16, [1, 4], ints)
    for op in range(6):
        p.binary(op, 0, 1, 2)
    p.new(0, T.BOOL, [5], [1, 0, 1]).new(1, T.BOOL, [5], [0, 0, 1, 1])
    for op in range(6):
        p.binary(op, 0, 1, 2, result_ndim=1)  # subtract: error
    seeds["binary_ops"] = p.out

    p = T()
    for a in range(11):
        p.new(0, a, [3], ints if a < 9 else floats)
        p.new(1, (a * 4 + 3) % 11, [2, 1], ints if (a * 4 + 3) % 11 < 9 else floats)
        p.binary(T.ADD, 0, 1, 2)
        p.binary(T.DIVIDE, 1, 0, 2)
    p.new(0, T.UINT64, [2], [T.MAX_INT, T.small(1)]).new(1, T.INT64, [2], [T.MIN_INT])
    p.binary(T.MULTIPLY, 0, 1, 2).binary(T.MAXIMUM, 0, 1, 2)
    p.new(0, T.INT32, [4], [T.MAX_INT, T.MIN_INT_PLUS_1]).new(1, T.INT32, [4], [T.MAX_INT_MINUS_1])
    p.binary(T.ADD, 0, 1, 2).binary(T.SUBTRACT, 1, 0, 2).binary(T.MULTIPLY, 0, 0, 2)
    seeds["promotion_and_wrap"] = p.out

    p = T()
    p.new(0, T.FLOAT64, [4, 5], floats + [T.small(4)])
    p.slice(0, 1, start=None, stop=None, step=-1)
    p.slice(0, -2, start=3, stop=0, step=-2)
    p.slice(0, 0, start=-7, stop=7, step=3)
    p.slice(0, 1, start=1, stop=1, step=1)  # zero-length axis
    p.slice(0, 2, step=1)                    # axis out of range
    p.slice(0, 0, step=0)                    # step 0
    p.new(1, T.INT16, [2, 3, 4], ints)
    p.transpose(1, swaps=[1, 0])
    p.transpose(1, broken=True)
    p.slice(1, 2, start=-1, stop=None, step=-3)
    p.binary(T.ADD, 1, 1, 2)
    p.new(0, T.UINT32, [3, 1], ints)
    p.broadcast_to(0, extra=[2], choices=[0, 6])
    p.broadcast_to(0, extra=[], choices=[0, 7, 0])   # bad extent: error
    p.expand_dims(0, 1).expand_dims(0, -1).expand_dims(0, 6)
    p.squeeze(0, axis=1, new_ndim=4).squeeze(0, axis=0).squeeze(0, new_ndim=2)
    p.binary(T.MULTIPLY, 0, 1, 2, result_ndim=3)
    seeds["views"] = p.out

    p = T()
    p.new(0, T.FLOAT32, [3, 4, 2], floats)
    for r in range(4):
        for axis in (None, 0, 1, -1):
            p.reduce(r, 0, axis=axis, keepdims=(axis == 1), out=2)
    p.reduce(T.SUM, 0, axis=3, ok=False).reduce(T.MAX, 0, axis=-4, ok=False)
    p.new(1, T.INT8, [4, 3], ints)
    for r in range(4):
        p.reduce(r, 1, axis=0, out=2).reduce(r, 1, axis=None, keepdims=True, out=2)
    p.new(1, T.UINT16, [5], ints).reduce(T.SUM, 1, axis=0).reduce(T.MEAN, 1)
    p.new(1, T.BOOL, [2, 3], [1, 0, 1, 1]).reduce(T.SUM, 1, axis=1)
    p.reduce(T.MIN, 1).reduce(T.MEAN, 1, axis=0)
    p.new(1, T.INT64, [3], [T.MAX_INT, T.small(1), T.MIN_INT]).reduce(T.SUM, 1)
    p.new(0, T.INT32, [], [T.small(5)]).reduce(T.MAX, 0).reduce(T.SUM, 0, axis=0, ok=False)
    seeds["reductions"] = p.out

    p = T()
    p.new(0, T.FLOAT64, [1, 0], []).new(1, T.INT32, [0, 1], [])
    p.binary(T.ADD, 0, 1, 2)
    p.new(1, T.INT32, [3, 1], ints).binary(T.MAXIMUM, 0, 1, 2)
    p.new(1, T.INT32, [3, 2], ints).binary(T.MINIMUM, 0, 1, 2, result_ndim=2)  # error
    p.new(0, T.FLOAT32, [0, 3], [])
    for r in range(4):
        p.reduce(r, 0, axis=0, out=2, ok=r in (T.SUM, T.MEAN))
        p.reduce(r, 0, axis=1, out=2)
    p.new(0, T.INT8, [3, 0], []).reduce(T.MIN, 0, axis=0).reduce(T.MAX, 0, ok=False)
    p.reduce(T.SUM, 0).reduce(T.MEAN, 0, axis=1)
    p.new(0, T.UINT8, [0], []).slice(0, 0, step=-1).broadcast_to(0, extra=[3])
    seeds["zero_length"] = p.out

    # .npy round trips of every dtype through C, Fortran (transposed),
    # strided, broadcast, 0-d and empty layouts.
    p = T()
    for a in range(11):
        p.new(0, a, [2, 3], ints if a < 9 else floats)
        p.npy_round_trip(0, 1).transpose(0).npy_round_trip(0, 1)
    p.new(0, T.FLOAT64, [3, 4], floats).slice(0, 1, step=-2).npy_round_trip(0, 1)
    p.new(0, T.INT32, [3], ints).broadcast_to(0, extra=[2]).npy_round_trip(0, 1)
    p.new(0, T.UINT16, [], ints).npy_round_trip(0, 2)
    p.new(0, T.FLOAT32, [0, 2], []).npy_round_trip(0, 2)
    seeds["npy_round_trip"] = p.out

    # sort / argsort of every dtype on each axis (ties, NaN, extremes, a
    # transposed view), bad axes; concatenate with promotion and bad shapes.
    p = T()
    for a in range(11):
        p.new(0, a, [3, 4], (ints if a < 9 else floats + [T.NAN, T.INF, T.NEG_ZERO]))
        p.sort(0, -1, 1).sort(0, 0, 1, arg=True).sort(0, 2, 2, ok=False)
        p.transpose(0).sort(0, 1, 1).sort(0, -1, 1, arg=True)
    p.new(0, T.FLOAT64, [], floats).sort(0, 0, 1, ok=False)
    p.new(0, T.INT8, [2, 3], ints).new(1, T.UINT8, [1, 3], ints)
    p.concatenate(0, 1, 0, 2).concatenate(0, 1, 1, 2, ok=False)
    p.new(1, T.FLOAT32, [2, 2], floats).concatenate(0, 1, -1, 2)
    p.transpose(1).concatenate(1, 0, 1, 2).concatenate(0, 1, 2, 2, ok=False)
    seeds["sort_concatenate"] = p.out

    p = T()
    specials = [T.NAN, T.small(1), T.INF, T.NEG_INF, T.NEG_ZERO, T.small(-1)]
    p.new(0, T.FLOAT64, [2, 3], specials).new(1, T.FLOAT32, [3], [T.INF, T.NEG_ZERO, T.small(0)])
    for op in range(6):
        p.binary(op, 0, 1, 2)
    for r in range(4):
        p.reduce(r, 0, axis=1, out=2).reduce(r, 1, out=2)
    p.new(1, T.INT64, [3], [T.small(0), T.small(2), T.small(-2)])
    p.binary(T.DIVIDE, 1, 1, 2).binary(T.DIVIDE, 0, 1, 2)
    seeds["nan_inf"] = p.out

    # Every unary op over every dtype (negative and sign of bool: errors),
    # contiguous, then through a reversed slice and a broadcast view.
    # (At most 64 ops a program: the harness's kMaxOps.)
    for group, dtypes in enumerate([(T.BOOL, T.INT8, T.INT16),
                                    (T.INT32, T.INT64, T.UINT8),
                                    (T.UINT16, T.UINT32, T.UINT64),
                                    (T.FLOAT32, T.FLOAT64)]):
        p = T()
        for a in dtypes:
            values = ints if a < 9 else floats + specials
            p.new(0, a, [2, 3], values)
            for op in range(T.NUM_UNARY):
                p.unary(op, 0, 1, ok=not (a == T.BOOL and op in (T.NEGATIVE, T.SIGN)))
        seeds["unary_ops_%d" % group] = p.out

    p = T()
    math = [T.small(v) for v in (1, 2, -3, 8, 0, -8)] + [T.quarter(v) for v in (1, -3, 5)]
    p.new(0, T.FLOAT32, [3, 3], math + specials)
    p.slice(0, 1, step=-1).slice(0, 0, start=2, stop=None, step=-2)
    for op in range(T.NUM_UNARY):
        p.unary(op, 0, 1)
    p.new(0, T.FLOAT64, [3, 1], math).broadcast_to(0, extra=[2], choices=[0, 6])
    for op in (T.EXP, T.LOG, T.SIN, T.COS, T.TANH, T.SQRT, T.FLOOR, T.CEIL):
        p.unary(op, 0, 1)
    p.new(0, T.INT16, [4], ints).transpose(0).unary(T.EXP, 0, 1).unary(T.SIN, 1, 2)
    p.new(0, T.UINT64, [3], [T.MAX_INT, T.small(4)]).unary(T.SQRT, 0, 1)
    p.new(0, T.INT8, [2, 2], [T.MIN_INT, T.small(-3)])
    for op in (T.NEGATIVE, T.ABS, T.SIGN, T.SQUARE):
        p.unary(op, 0, 1)
    p.new(0, T.FLOAT64, [5], [T.NEG_ZERO, T.quarter(-1), T.quarter(1), T.NAN, T.INF])
    for op in (T.NEGATIVE, T.ABS, T.SIGN, T.FLOOR, T.CEIL, T.SQRT):
        p.unary(op, 0, 1)
    seeds["unary_views_and_specials"] = p.out

    # Comparisons, fmax/fmin, bitwise and logical ops across dtypes, with
    # broadcasting and NaN; bitwise ops on floats are errors.
    p = T()
    p.new(0, T.INT8, [2, 4], ints).new(1, T.UINT8, [4], ints)
    for op in range(T.FMAX, T.NUM_BINARY):
        p.binary(op, 0, 1, 2)
    p.new(0, T.FLOAT32, [3, 1], floats + specials).new(1, T.INT16, [1, 4], ints)
    for op in range(T.FMAX, T.NUM_BINARY):
        p.binary(op, 0, 1, 2, result_ndim=2)
    p.new(0, T.BOOL, [5], [1, 0, 1]).new(1, T.BOOL, [5], [0, 0, 1, 1])
    for op in range(T.FMAX, T.NUM_BINARY):
        p.binary(op, 0, 1, 2)
    seeds["compare_bitwise_logical"] = p.out

    p = T()
    p.new(0, T.FLOAT64, [6], specials).new(1, T.FLOAT64, [6], list(reversed(specials)))
    for op in range(T.FMAX, T.NUM_BINARY):
        p.binary(op, 0, 1, 2)
    p.new(0, T.UINT64, [2], [T.MAX_INT, T.small(1)]).new(1, T.INT64, [2], [T.MIN_INT, T.small(1)])
    for op in range(T.EQUAL, T.NUM_BINARY):
        p.binary(op, 0, 1, 2)
    p.new(1, T.INT64, [3], ints).binary(T.LESS, 0, 1, 2, result_ndim=1)  # error
    seeds["compare_nan_and_wide_ints"] = p.out

    # where and clip: promotion, broadcasting of all three, NaN conditions
    # and bounds, lo > hi, a failing broadcast.
    p = T()
    p.new(0, T.FLOAT64, [2, 1], specials).new(1, T.INT8, [3], ints).new(2, T.UINT16, [2, 3], ints)
    p.where(0, 1, 2, 2).where(1, 0, 1, 1)
    p.new(0, T.BOOL, [4], [1, 0, 0, 1]).new(1, T.FLOAT32, [1], floats).new(2, T.INT32, [4, 1], ints)
    p.where(0, 1, 2, 1)
    p.where(2, 0, 0, 0)
    p.new(0, T.INT16, [2, 3], ints).new(1, T.INT16, [3], [T.small(-2)]).new(2, T.INT16, [2, 1], [T.small(3), T.small(-5)])
    p.clip(0, 1, 2, 0)
    p.new(0, T.FLOAT64, [6], specials).new(1, T.FLOAT32, [], [T.small(-1)]).new(2, T.FLOAT64, [6], [T.small(0), T.NAN, T.small(2)])
    p.clip(0, 1, 2, 1)
    p.new(0, T.UINT8, [3], ints).new(1, T.INT8, [1], [T.small(2)]).new(2, T.FLOAT32, [], [T.small(6)])
    p.clip(0, 1, 2, 0)
    p.new(0, T.INT32, [3], ints).new(1, T.INT32, [2], ints).clip(0, 1, 1, 2, result_ndim=1)  # error
    p.where(0, 1, 0, 2, result_ndim=1)  # error
    seeds["where_clip"] = p.out
    seeds.update(shape_index_seeds(ints, floats, specials))
    return seeds


def shape_index_seeds(ints, floats, specials):
    """The opcodes of fuzz/tensor/internal/shape_index_steps.inc: each op
    with good operands and with each kind of bad one."""
    T = TensorProgram
    seeds = {}

    # stack / hstack / vstack with promotion, bad axes and shapes, 0-d inputs.
    p = T()
    p.new(0, T.INT16, [2, 3], ints).new(1, T.FLOAT32, [2, 3], floats)
    p.stack(0, 0, 1, 2, axis=0).stack(0, 0, 1, 2, axis=-1)
    p.stack(0, 0, 1, 2, axis=3)                      # axis out of range
    p.stack(1, 0, 1, 2).stack(2, 0, 1, 2)
    p.new(1, T.INT8, [3], ints)
    p.stack(0, 0, 1, 2)                              # shapes differ
    p.stack(1, 0, 1, 2)                              # (2, 3) with (3,)
    p.stack(1, 1, 1, 2, ndim_out=1).stack(2, 1, 1, 2).stack(2, 0, 1, 2)
    p.new(1, T.FLOAT64, [], [T.small(4)]).stack(1, 1, 1, 2).stack(2, 1, 1, 2)
    p.stack(0, 1, 1, 2, axis=0).stack(0, 1, 1, 2, axis=-2)
    # split by count, at indices (negative, decreasing, past the end) and
    # array_split; bad counts and axes.
    p.new(0, T.INT32, [4, 3], ints)
    p.split(0, 0, 0, 2, sections=2, pick=1).split(0, 0, 1, 2, sections=2, ok=False)
    p.split(0, 0, 0, 2, sections=0, ok=False).split(2, 0, 1, 2, sections=2)
    p.split(2, 0, 0, 2, sections=6, pick=5).split(2, 0, 0, 2, sections=-1, ok=False)
    p.split(1, 0, 0, 2, indices=[1, 3]).split(1, 0, -1, 2, indices=[2, -1, 7], pick=2)
    p.split(1, 0, 0, 2, indices=[]).split(0, 0, 2, 2, ok=False)
    # tile, repeat, pad (the 0-d negative width: a fixed bug).
    p.tile(0, [2], 2).tile(0, [2, 1, 2], 2).tile(0, [-1], 2).tile(0, [], 2)
    p.repeat(0, None, 0, [2], 2).repeat(0, 1, 1, [0, 1, 2], 2)
    p.repeat(0, 0, 2, [1] * 5, 2).repeat(0, 0, 0, [-1], 2).repeat(0, 2, 0, [1], 2)
    p.repeat(0, -2, 3, [], 2)
    p.pad(0, 0, [(1, 2)], 3, 2).pad(0, 1, [(0, 1), (2, 0)], 0, 2)
    p.pad(0, 2, [(1, 1)] * 3, 0, 2, ok=False).pad(0, 0, [(-1, 0)], 0, 2, ok=False)
    p.pad(0, 1, [(0, 0), (1, -1)], 0, 2, ok=False)
    p.new(1, T.INT8, [], [T.small(-3)])
    p.pad(1, 0, [(-1, 2)], 1, 2, ok=False).pad(1, 0, [(1, 2)], 1, 2).pad(1, 3, [], 0, 2)
    p.new(1, T.BOOL, [0, 2], []).pad(1, 1, [(1, 0), (0, 1)], 2, 2).tile(1, [3, 1], 2)
    seeds["stack_split_tile_repeat_pad"] = p.out

    # cumsum / cumprod / diff, partition / argpartition, unique and
    # searchsorted over every dtype (four programs: at most kMaxOps = 64 ops
    # each).
    values = {a: ints if a < 9 else floats + specials for a in range(12)}
    for group, dtypes in enumerate([(T.BOOL, T.INT8, T.INT32),
                                    (T.UINT8, T.UINT64, T.INT64),
                                    (T.FLOAT32, T.FLOAT64, T.FLOAT16),
                                    (T.UINT16, T.INT16)]):
        p = T()
        for a in dtypes:
            p.new(0, a, [3, 4], values[a])
            p.scan(0, 0, 1, axis=None).scan(1, 0, 1, axis=1).scan(0, 0, 1, axis=2)
            p.scan(2, 0, 1, n=1, axis=-1).scan(2, 0, 1, n=3, axis=0)
            p.scan(2, 0, 1, n=-1, axis=0)
            p.partition(0, -1, [1], 1).partition(0, None, [0, -1], 1, arg=True)
            p.partition(0, 0, [3], 1, ok=False).partition(0, 1, [], 1, ok=False)
            p.unique(0, 1)
            p.new(1, a, [5], values[a]).searchsorted(1, 0, 2)
            p.searchsorted(1, 0, 2, right=True).searchsorted(1, 0, 2, sort_first=False)
            p.searchsorted(0, 1, 2, ok=False)
        seeds["scan_partition_unique_searchsorted_%d" % group] = p.out

    # take (N-d index arrays, every mode, float and empty-axis errors), put
    # (into a copy; a read-only view refuses).
    p = T()
    p.new(0, T.FLOAT64, [3, 4], floats + specials)
    p.take(T.RAISE, 0, 0, T.IX_INT64, [2], [2, -1], 1)
    p.take(T.RAISE, 0, 1, T.IX_INT8, [2, 2], [0, 3, -4, 1], 1)
    p.take(T.RAISE, 0, 1, T.IX_INT64, [1], [4], 1)           # out of bounds
    p.take(T.WRAP, 0, 1, T.IX_INT32, [3], [4, -5, 7], 1)
    p.take(T.CLIP_MODE, 0, None, T.IX_UINT8, [2], [7, 0], 1)
    p.take(T.CLIP_MODE, 0, -1, T.IX_INT16, [], [-7], 1)
    p.take(T.RAISE, 0, 0, T.IX_FLOAT32, [1], [0], 1)         # float indices
    p.take(T.RAISE, 0, 0, T.IX_BOOL, [2], [1, 0], 1)
    p.take(T.RAISE, 0, 2, T.IX_INT64, [1], [0], 1)           # bad axis
    p.put(T.RAISE, 0, T.IX_INT64, [2], [0, -1], [T.small(5)], 2)
    p.put(T.WRAP, 0, T.IX_INT16, [2, 2], [7, -7, 3, 3], [T.small(1), T.small(2)], 2,
          int64_values=True)
    p.put(T.RAISE, 0, T.IX_INT64, [1], [7], [T.small(1)], 2, ok=False)
    p.put(T.CLIP_MODE, 0, T.IX_INT64, [1], [-7], [], 2, ok=False)
    p.put(T.RAISE, 0, T.IX_UINT64, [0], [0], [], 2)
    p.new(1, T.INT8, [0, 2], [])
    p.take(T.CLIP_MODE, 1, 0, T.IX_INT64, [1], [0], 2)       # empty axis
    p.take(T.RAISE, 1, 0, T.IX_INT64, [0], [0], 2)
    p.put(T.WRAP, 1, T.IX_INT64, [1], [0], [T.small(1)], 2, ok=False)
    p.new(1, T.INT32, [3], ints).broadcast_to(1, extra=[2])
    p.put(T.RAISE, 1, T.IX_INT64, [1], [0], [T.small(1)], 2, ok=False)
    p.new(1, T.UINT8, [], [T.small(6)]).take(T.RAISE, 1, None, T.IX_INT8, [2], [0, -1], 2)
    p.take(T.RAISE, 1, 0, T.IX_INT8, [1], [0], 2)            # 0-d: as (1,)
    p.take(T.WRAP, 1, -1, T.IX_INT64, [2, 2], [3, -2, 0, 1], 2)
    p.take(T.RAISE, 1, 1, T.IX_INT64, [1], [0], 2)           # bad axis
    p.put(T.RAISE, 1, T.IX_INT64, [1], [0], [T.MAX_INT], 2, int64_values=True)
    seeds["take_put"] = p.out

    # Boolean masks: select and assign over the leading axes, every kind of
    # values, bad masks; compress; nonzero / where / argwhere.
    p = T()
    p.new(0, T.INT16, [3, 4], ints)
    bits12 = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1]
    p.masked_select(0, 2, bits12, 2).masked_select(0, 1, [1, 0, 1], 2)
    p.masked_select(0, 0, [1], 2).masked_select(0, 0, [0], 2)
    p.masked_select(0, 2, [1] * 15, 2, flaw=5, ok=False)
    p.masked_select(0, 1, [1, 1, 0], 2, flaw=6, ok=False)
    p.masked_select(0, 2, bits12, 2, flaw=7, ok=False)
    p.masked_assign(0, 2, bits12, 0, [3], 1)
    p.masked_assign(0, 2, bits12, 1, [T.small(-2)], 1)
    p.masked_assign(0, 1, [1, 0, 1], 2, [T.small(v) for v in (1, 2, 3, 4)], 1)
    p.masked_assign(0, 1, [1, 0, 1], 3, [T.small(v) for v in range(8)], 1,
                    int64_values=True)
    p.masked_assign(0, 1, [1, 0, 1], 4, [T.small(1)] * 12, 1, ok=False)
    p.masked_assign(0, 2, bits12, 5, [T.MIN_INT], 1)
    p.masked_assign(0, 2, bits12, 3, [T.small(1)] * 7, 1, flaw=6, ok=False)
    p.compress(0, 0, [1, 0, 1], 2).compress(0, 1, [0, 1, 1, 0, 1], 2, ok=False)
    p.compress(0, 1, [0, 1, 1, 0, 0], 2).compress(0, None, [2, 0, 1], 2, int8=True)
    p.compress(0, 0, [1], 2, two_d=True, ok=False).compress(0, 2, [1], 2, ok=False)
    p.compress(0, -1, [], 2)
    p.nonzero(0, 0, 2).nonzero(1, 0, 2, pick=1).nonzero(2, 0, 2)
    p.new(1, T.FLOAT32, [2, 3], specials).nonzero(2, 1, 2).nonzero(0, 1, 2, pick=1)
    p.broadcast_to(1, extra=[2])
    p.masked_assign(1, 1, [1, 0], 0, [0], 2, ok=False)       # read-only view
    p.masked_select(1, 3, [1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0], 2)
    p.new(1, T.INT8, [], [T.small(3)]).nonzero(0, 1, 2).nonzero(2, 1, 2)
    p.masked_select(1, 0, [1], 2).masked_assign(1, 0, [1], 0, [5], 2)
    p.new(1, T.BOOL, [], [0]).nonzero(1, 1, 2).compress(1, None, [1, 0], 2)
    p.compress(1, 0, [1], 2).compress(1, -1, [0, 1], 2, ok=False)
    p.compress(1, 1, [1], 2, ok=False).repeat(1, 0, 0, [3], 2).repeat(1, -1, 1, [2], 2)
    seeds["masks_compress_nonzero"] = p.out

    # expand_dims / squeeze with tuples: negative, repeated and out-of-range
    # axes, axes of extent 2, empty tuples.
    p = T()
    p.new(0, T.INT16, [2, 1, 3], ints)
    p.expand_dims_tuple(0, [0, -1])                    # (1, 2, 1, 3, 1)
    p.squeeze_tuple(0, [0, -1, 2])                     # (2, 3)
    p.expand_dims_tuple(0, [1, 1], ok=False)           # repeated
    p.expand_dims_tuple(0, [3], ok=False)              # out of range
    p.squeeze_tuple(0, [0], ok=False)                  # extent 2
    p.squeeze_tuple(0, []).expand_dims_tuple(0, [])
    p.expand_dims_tuple(0, [-5, 2, 4])                 # (1, 2, 1, 3, 1)
    p.squeeze_tuple(0, [0, -5], ok=False)              # the same axis twice
    p.squeeze_tuple(0, [5], ok=False).squeeze_tuple(0, [4, 2, 0])
    p.binary(T.ADD, 0, 0, 1)
    p.new(1, T.FLOAT64, [], [T.small(1)]).expand_dims_tuple(1, [0, 1, -1])
    p.squeeze_tuple(1, [1, 0, 2]).squeeze_tuple(1, [0], ok=False)
    seeds["expand_squeeze_tuples"] = p.out

    # The zero-length inner axis of sort (a fixed bug; its mutated input in
    # the corpus predates the opcodes above, which changed what it decodes to).
    p = T()
    p.new(0, T.FLOAT32, [2, 3, 0], []).sort(0, 0, 1).sort(0, 1, 1, arg=True)
    p.new(0, T.INT8, [3, 0, 2], []).sort(0, 0, 1).sort(0, -3, 1, arg=True)
    p.partition(0, 0, [1], 1).scan(0, 0, 1, axis=0).scan(2, 0, 1, n=2, axis=1)
    seeds["sort_zero_length_inner_axis"] = p.out
    return seeds
