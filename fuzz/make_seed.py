#!/usr/bin/env python3
# Copyright 2026 The Tessera Authors.
"""Writes the seed corpora of Tessera's op-program fuzz harnesses.

    python3 fuzz/make_seed.py system_allocator alloc/system/corpus

Each seed is a short program in the harness's input language, spelled with
the encoders below so that it reads as what it does. The encoders mirror
fuzz/byte_reader.h: `ConsumeIntegralInRange(lo, hi)` reads the fewest
little-endian bytes that cover hi - lo and reduces modulo the range width.
Seeds are meant to reach every op and every misuse path once, so that fuzzing
(and the regression replay) starts from full coverage of the decoder.
"""

import os
import sys


def in_range(value, lo, hi):
    """Bytes that ByteReader.ConsumeIntegralInRange(lo, hi) decodes to value."""
    assert lo <= value <= hi, (value, lo, hi)
    span = hi - lo
    raw = value - lo
    out = []
    shift = 0
    while shift < 64 and (span >> shift) != 0:
        out.append((raw >> shift) & 0xFF)
        shift += 8
    return bytes(out)


# ---- alloc/system/system_allocator_fuzzer.cc ----

class System:
    """Encoder for the system allocator harness's input language."""

    (ALLOCATE, ALLOCATE_ZEROED, ALLOCATE_CHECKED, ALLOCATE_ZEROED_CHECKED,
     REALLOCATE, REALLOCATE_CHECKED, DEALLOCATE, DEALLOCATE_CHECKED,
     BAD_ALIGNMENT, BAD_SIZE, DOUBLE_FREE, FOREIGN_POINTER, SIZE_MISMATCH,
     PMR_BLOCK, STD_BLOCK, PMR_CONTAINERS, STD_CONTAINERS, VERIFY_ALL,
     NUM_OPS) = range(19)

    MALLOC, ALIGNED, ZEROED = 0, 1, 2

    @staticmethod
    def config(kind, tracked=True, huge_pages=False, k=0):
        """kind; registry on/off; huge-page advice; min alignment 16 << k,
        huge-page threshold 4096 << 2k."""
        return bytes([kind | (0 if tracked else 0x08) |
                      (0x10 if huge_pages else 0) | (k << 5)])

    @staticmethod
    def op(code):
        return in_range(code, 0, System.NUM_OPS - 1)

    @staticmethod
    def size(n):
        if n <= 64:
            return bytes([0]) + in_range(n, 0, 64)
        if n <= 4096:
            return bytes([16]) + in_range(n, 0, 4096)
        if n <= 1 << 17:
            return bytes([26]) + in_range(n, 0, 1 << 17)
        return bytes([31, 0]) + in_range(n, 4 << 20, 5 << 20)

    @staticmethod
    def alignment(a=None):
        return bytes([0 if a is None else a.bit_length()])

    @classmethod
    def alloc(cls, n, a=None, code=None):
        return cls.op(cls.ALLOCATE if code is None else code) + cls.size(n) + \
            cls.alignment(a)

    @classmethod
    def realloc(cls, block, n, checked=False):
        return cls.op(cls.REALLOCATE_CHECKED if checked else cls.REALLOCATE) + \
            bytes([block]) + cls.size(n)

    @classmethod
    def free(cls, block, checked=False):
        return cls.op(cls.DEALLOCATE_CHECKED if checked else cls.DEALLOCATE) + \
            bytes([block])

    @classmethod
    def bad_alignment(cls, pick, n, variant, block=0):
        out = cls.op(cls.BAD_ALIGNMENT) + bytes([pick]) + cls.size(n) + \
            bytes([variant])
        return out + (bytes([block]) if variant >= 4 else b"")

    @classmethod
    def bad_size(cls, pick, variant, block=0, a=None):
        out = cls.op(cls.BAD_SIZE) + bytes([pick, variant])
        return out + (bytes([block]) if variant in (4, 5) else cls.alignment(a))

    @classmethod
    def double_free(cls, pick, variant):
        return cls.op(cls.DOUBLE_FREE) + bytes([pick, variant])

    @classmethod
    def foreign(cls, variant, a=None, n=16, interior=None):
        """interior=(block, offset) for an interior pointer (tracked only)."""
        out = cls.op(cls.FOREIGN_POINTER) + bytes([interior is not None]) + \
            cls.alignment(a) + cls.size(n)
        if interior is not None:
            out += bytes([interior[0]]) + in_range(interior[1] - 1, 0, 4095)
        return out + bytes([variant])

    @classmethod
    def size_mismatch(cls, block, variant, extra=None):
        out = cls.op(cls.SIZE_MISMATCH) + bytes([block])
        out += bytes([1, extra]) if extra is not None else bytes([0])
        return out + bytes([variant])

    @classmethod
    def pmr_block(cls, n, a=None):
        return cls.op(cls.PMR_BLOCK) + cls.size(n) + cls.alignment(a)

    @classmethod
    def std_block(cls, n):
        return cls.op(cls.STD_BLOCK) + cls.size(n)

    @classmethod
    def pmr_containers(cls, n, seed=7):
        return cls.op(cls.PMR_CONTAINERS) + in_range(n, 0, 1000) + bytes([seed])

    @classmethod
    def std_containers(cls, n, seed=9):
        return cls.op(cls.STD_CONTAINERS) + in_range(n, 0, 500) + bytes([seed])

    @classmethod
    def verify(cls):
        return cls.op(cls.VERIFY_ALL)


def system_allocator_seeds():
    S = System
    seeds = {}
    seeds["malloc_basic"] = (
        S.config(S.MALLOC) + S.alloc(0) + S.alloc(24) + S.alloc(100, 64) +
        S.alloc(3000, 4096) + S.alloc(40, 1, S.ALLOCATE_ZEROED) +
        S.alloc(4000, 32, S.ALLOCATE_CHECKED) +
        S.alloc(17, None, S.ALLOCATE_ZEROED_CHECKED) + S.realloc(1, 1000) +
        S.realloc(2, 8, checked=True) + S.realloc(3, 60000) + S.verify() +
        S.free(0) + S.free(1, checked=True) + S.free(0))
    seeds["aligned64_misuse"] = (
        S.config(S.ALIGNED, k=2) + S.alloc(64) + S.alloc(200, 256) +
        S.alloc(1, 8) + S.free(2) + S.double_free(0, 0) +
        S.double_free(0, 1) + S.double_free(0, 2) + S.double_free(0, 3) +
        S.foreign(0) + S.foreign(1, 64) + S.foreign(2) + S.foreign(3, 128) +
        S.foreign(0, interior=(0, 16)) + S.foreign(1, interior=(1, 100)) +
        S.size_mismatch(0, 0, extra=3) + S.size_mismatch(1, 1) +
        S.size_mismatch(0, 2, extra=0) + S.realloc(1, 5000) + S.free(0))
    seeds["zeroed_growth"] = (
        S.config(S.ZEROED) + S.alloc(10) + S.alloc(64, 128) +
        S.realloc(0, 4000) + S.realloc(1, 100000, checked=True) +
        S.realloc(0, 3) + S.alloc(0, None, S.ALLOCATE_ZEROED) +
        S.pmr_block(300, 64) + S.std_block(640) + S.verify() + S.free(2))
    seeds["malloc_untracked_bad_input"] = (
        S.config(S.MALLOC, tracked=False) + S.alloc(32) +
        b"".join(S.bad_alignment(pick, 8, variant)
                 for pick, variant in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4),
                                       (5, 5), (6, 6), (7, 2), (8, 3))) +
        b"".join(S.bad_size(pick, variant, a=64)
                 for pick, variant in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4),
                                       (5, 5), (6, 6), (0, 7), (1, 8),
                                       (4, 2), (6, 3))) +
        S.realloc(0, 48) + S.free(0))
    seeds["adapters"] = (
        S.config(S.ALIGNED, k=0) + S.pmr_block(0) + S.pmr_block(100, 128) +
        S.std_block(0) + S.std_block(6400) + S.pmr_containers(0) +
        S.pmr_containers(700) + S.std_containers(0) + S.std_containers(500) +
        S.realloc(3, 200) + S.free(1) + S.free(0))
    seeds["aligned_untracked_headers"] = (
        S.config(S.ALIGNED, tracked=False, k=3) + S.alloc(50) +
        S.alloc(1000, 4096) + S.foreign(0) + S.foreign(1, 32) + S.foreign(2) +
        S.foreign(3, 4096) + S.realloc(1, 9000) + S.free(0))
    seeds["huge_pages"] = (
        S.config(S.MALLOC, huge_pages=True, k=0) + S.alloc(4 << 20) +
        S.alloc(5000, 64) + S.realloc(1, 1 << 17) + S.realloc(0, 5 << 20) +
        S.free(0) + S.free(0))
    seeds["zeroed_untracked_foreign"] = (
        S.config(S.ZEROED, tracked=False, huge_pages=True, k=1) +
        S.alloc(5000) + S.foreign(1) + S.foreign(3, 16) +
        S.realloc(0, 9000, checked=True) + S.free(0, checked=True))
    return seeds


HARNESSES = {
    "system_allocator": system_allocator_seeds,
}


def main(argv):
    if len(argv) != 3 or argv[1] not in HARNESSES:
        sys.exit("usage: make_seed.py {%s} OUT_DIR" % ",".join(HARNESSES))
    out_dir = argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for name, data in sorted(HARNESSES[argv[1]]().items()):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print("%s: %d bytes" % (os.path.join(out_dir, name), len(data)))


if __name__ == "__main__":
    main(sys.argv)
