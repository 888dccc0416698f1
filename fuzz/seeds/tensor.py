# Copyright 2026 The Tessera Authors.
"""Seeds of the tensor engine's differential fuzzer (fuzz/tensor)."""

from seeds.encoding import in_range


# ---- fuzz/tensor/tensor_fuzzer.cc ----

class TensorProgram:
    """Encoder for the tensor harness's input language. Tracks each slot's
    ndim, because axis operands are read in ranges that depend on it."""

    (NEW, SLICE, TRANSPOSE, BROADCAST_TO, EXPAND_DIMS, SQUEEZE, BINARY,
     REDUCE, UNARY, WHERE, CLIP, NPY_ROUND_TRIP, SORT, CONCATENATE,
     NUM_OPS) = range(15)
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
    return seeds
