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


# ---- alloc/tlsf/tlsf_arena_fuzzer.cc ----

class Tlsf:
    """Encoder for the TLSF arena harness's input language."""

    (ALLOC, TRY_ALLOC, ALLOCATE, FREE_HANDLE, TRY_FREE, FREE_POINTER,
     DEALLOCATE, REALLOC, REALLOCATE, COLLECT, ADD_REGION, DOUBLE_FREE,
     FOREIGN, BAD_REQUEST, HANDLE_OF, VERIFY_ALL, NUM_OPS) = range(17)

    @staticmethod
    def config(granule_log4=1, big_alignment=False, arena_log2=0, divisor=1,
               grow=False, growth_log2=0, caller_memory=False, quick=0):
        """granularity 16 << 2*granule_log4; arena 256 KiB << arena_log2;
        max block = arena / divisor (1..4); growth regions 128 KiB << g;
        quick-cache depth {0, 1, 4, 16}[quick]."""
        a = granule_log4 | (big_alignment << 2) | (arena_log2 << 3) | \
            ((divisor - 1) << 5)
        b = int(grow) | (growth_log2 << 1) | (caller_memory << 3) | (quick << 4)
        return bytes([a, b])

    @staticmethod
    def op(code):
        return in_range(code, 0, Tlsf.NUM_OPS - 1)

    @staticmethod
    def size(n):
        if n <= 256:
            return bytes([0]) + in_range(n, 0, 256)
        if n <= 8192:
            return bytes([4]) + in_range(n, 0, 8192)
        return bytes([7]) + in_range(n, 0, 1 << 18)

    @staticmethod
    def alignment(a=None):
        return bytes([0 if a is None else a.bit_length()])

    @classmethod
    def alloc(cls, n, a=None, code=None):
        return cls.op(cls.ALLOC if code is None else code) + cls.size(n) + \
            cls.alignment(a)

    @classmethod
    def free(cls, block, how=0, window=4):
        """how: 0 Free(handle) 1 TryFree 2 Free(ptr) 3 Deallocate
        4 DeallocateChecked."""
        out = cls.op(cls.FREE_HANDLE + min(how, 3)) + bytes([block])
        if how >= 3:
            out += bytes([how == 4])
        return out + bytes([window])

    @classmethod
    def realloc(cls, block, n, by_handle=True):
        return cls.op(cls.REALLOC if by_handle else cls.REALLOCATE) + \
            bytes([block]) + cls.size(n)

    @classmethod
    def collect(cls, release=False, threshold_log2=0):
        return cls.op(cls.COLLECT) + bytes([int(release), threshold_log2])

    @classmethod
    def add_region(cls, log2=0, system=True):
        return cls.op(cls.ADD_REGION) + bytes([log2, int(system)])

    @classmethod
    def double_free(cls, pick, variant, window=1):
        out = cls.op(cls.DOUBLE_FREE) + bytes([pick, variant])
        return out + (bytes([window]) if variant == 0 else b"")

    @classmethod
    def foreign(cls, kind, checked=True, interior=None):
        out = cls.op(cls.FOREIGN) + bytes([kind])
        if kind == 1 and interior is not None:
            out += bytes([interior[0]]) + in_range(interior[1] - 1, 0, 4095)
        if kind <= 1:
            out += bytes([int(checked)])
        return out

    @classmethod
    def bad_request(cls, variant, bad_alignment_pick=None, size_pick=0,
                    block=0):
        if bad_alignment_pick is not None:
            out = cls.op(cls.BAD_REQUEST) + bytes([1, bad_alignment_pick]) + \
                cls.size(64)
        else:
            out = cls.op(cls.BAD_REQUEST) + bytes([0, size_pick])
        out += bytes([variant])
        return out + (bytes([block]) if variant >= 3 else b"")

    @classmethod
    def handle_of(cls, block):
        return cls.op(cls.HANDLE_OF) + bytes([block])

    @classmethod
    def verify(cls):
        return cls.op(cls.VERIFY_ALL)


def tlsf_arena_seeds():
    T = Tlsf
    seeds = {}
    seeds["split_and_merge"] = (
        T.config() + T.alloc(100) + T.alloc(0) + T.alloc(5000, 256) +
        T.alloc(64, 4096, T.TRY_ALLOC) + T.alloc(300, 32, T.ALLOCATE) +
        T.free(1, 0) + T.free(0, 1, window=1) + T.alloc(48) +
        T.realloc(0, 9000) + T.realloc(1, 10, by_handle=False) +
        T.handle_of(2) + T.free(2, 2) + T.free(0, 3) + T.free(0, 4) +
        T.verify())
    seeds["deferred_collect"] = (
        T.config(granule_log4=0) + b"".join(T.alloc(200 + 40 * i)
                                            for i in range(8)) +
        b"".join(T.free(0, 0, window=0) for _ in range(4)) +
        T.collect() + T.alloc(2000) + T.free(1, 2, window=0) +
        T.free(0, 1, window=0) + T.collect(release=True) + T.verify())
    seeds["misuse"] = (
        T.config(granule_log4=2) + T.alloc(100) + T.alloc(3000) +
        T.alloc(10) + T.free(2) +
        b"".join(T.double_free(0, v) for v in range(5)) +
        T.foreign(0, True) + T.foreign(0, False) +
        T.foreign(1, True, interior=(0, 16)) +
        T.foreign(1, False, interior=(1, 100)) + T.foreign(2) +
        T.foreign(3) + T.foreign(4) +
        b"".join(T.bad_request(v, bad_alignment_pick=v) for v in range(5)) +
        b"".join(T.bad_request(v, size_pick=v % 4) for v in range(5)))
    seeds["growth"] = (
        T.config(arena_log2=0, divisor=2, grow=True, growth_log2=0) +
        b"".join(T.alloc(60000) for _ in range(6)) +
        T.add_region(1, True) + T.add_region(0, False) +
        b"".join(T.alloc(100000) for _ in range(3)) +
        T.realloc(0, 120000) + T.collect(release=True, threshold_log2=1))
    seeds["caller_memory_oom"] = (
        T.config(granule_log4=3, big_alignment=True, divisor=4,
                 caller_memory=True) +
        b"".join(T.alloc(65536, 1024) for _ in range(6)) +
        T.alloc(300, None, T.ALLOCATE) + T.realloc(0, 260000) +
        T.realloc(1, 1) + T.free(0, 0) + T.alloc(65536, 65536))
    seeds["quick_cache"] = (
        T.config(granule_log4=0, quick=2) +
        b"".join(T.alloc(16 * (1 + i % 8)) for i in range(12)) +
        T.free(0, 0) + T.free(0, 1) + T.free(0, 2) + T.free(0, 3) +
        T.alloc(16) + T.alloc(32, None, T.TRY_ALLOC) +
        T.alloc(48, None, T.ALLOCATE) + T.double_free(0, 3) +
        T.double_free(0, 4) + T.double_free(1, 0) + T.double_free(0, 1) +
        T.free(1, 0, window=0) + T.collect() + T.alloc(16))
    return seeds


# ---- alloc/pool/stacked_pool_fuzzer.cc ----

class Pool:
    """Encoder for the StackedPool harness's input language."""

    (TAKE, TAKE_CHECKED, TAKE_BATCH, RETURN, RETURN_CHECKED, RETURN_BATCH,
     TRIM, DOUBLE_RETURN, FOREIGN, VERIFY_ALL, NUM_OPS) = range(11)
    GROW, UPSTREAM, FAIL = 0, 1, 2

    @staticmethod
    def config(cell=16, align_log2=1, page_aligned=False, cells=8, initial=1,
               policy=0, block_source=False, checks=True, trim=False,
               trim_factor=1, bad_option=0):
        """cell: multiple of 8 up to 512; alignment 8 << align_log2 (0..7)
        or 4096; cells per block 1..64; initial blocks 0..3."""
        a = (cell // 8 - 1) | ((align_log2 & 3) << 6)
        b = (align_log2 >> 2) | (page_aligned << 1) | ((cells - 1) << 2)
        c = initial | (policy << 2) | (block_source << 4) | \
            ((not checks) << 5) | (trim << 6) | ((trim_factor - 1) << 7)
        return bytes([a, b, c, bad_option])

    @staticmethod
    def op(code):
        return in_range(code, 0, Pool.NUM_OPS - 1)

    @classmethod
    def take(cls, checked=False):
        return cls.op(cls.TAKE_CHECKED if checked else cls.TAKE)

    @classmethod
    def take_batch(cls, n):
        return cls.op(cls.TAKE_BATCH) + bytes([n])

    @classmethod
    def ret(cls, cell, checked=False):
        return cls.op(cls.RETURN_CHECKED if checked else cls.RETURN) + \
            bytes([cell])

    @classmethod
    def return_batch(cls, n):
        return cls.op(cls.RETURN_BATCH) + bytes([n])

    @classmethod
    def trim(cls):
        return cls.op(cls.TRIM)

    @classmethod
    def double_return(cls, pick, checked):
        return cls.op(cls.DOUBLE_RETURN) + bytes([pick, int(checked)])

    @classmethod
    def foreign(cls, kind, cell=0, checked=True, checks_on=True):
        out = cls.op(cls.FOREIGN) + bytes([kind])
        if kind > 0:
            out += bytes([cell])
        return out + (bytes([int(checked)]) if checks_on else b"")

    @classmethod
    def verify(cls):
        return cls.op(cls.VERIFY_ALL)


def stacked_pool_seeds():
    P = Pool
    seeds = {}
    seeds["grow_and_trim"] = (
        P.config(cell=24, cells=4, initial=0) +
        b"".join(P.take() for _ in range(10)) + P.take(True) +
        P.ret(3) + P.ret(0, True) + P.take_batch(9) + P.return_batch(12) +
        P.trim() + P.take() + P.verify())
    seeds["upstream_overflow"] = (
        P.config(cell=64, align_log2=3, cells=2, initial=1, policy=P.UPSTREAM,
                 bad_option=4) +
        b"".join(P.take() for _ in range(6)) + P.ret(0) + P.ret(4, True) +
        P.take_batch(5) + P.return_batch(3) + P.trim())
    seeds["fail_policy"] = (
        P.config(cell=8, cells=3, initial=1, policy=P.FAIL, bad_option=1) +
        b"".join(P.take() for _ in range(5)) + P.take(True) +
        P.take_batch(4) + P.ret(1) + P.take_batch(4))
    seeds["misuse"] = (
        P.config(cell=40, cells=5, block_source=True, bad_option=2) +
        b"".join(P.take() for _ in range(7)) + P.ret(2) + P.ret(5) +
        P.double_return(0, True) + P.double_return(1, False) +
        P.foreign(0, checked=True) + P.foreign(0, checked=False) +
        P.foreign(1, 0, True) + P.foreign(1, 1, False) +
        P.foreign(2, 2, True) + P.foreign(2, 3, False) + P.verify())
    seeds["unchecked_high_water"] = (
        P.config(cell=512, page_aligned=True, cells=2, checks=False,
                 trim=True, trim_factor=1, bad_option=3) +
        b"".join(P.take() for _ in range(8)) +
        b"".join(P.ret(0) for _ in range(6)) +
        P.foreign(0, checks_on=False) + P.foreign(2, 0, checks_on=False) +
        P.take_batch(3))
    return seeds


# ---- alloc/pool/size_class_pool_fuzzer.cc ----

class SizeClass:
    """Encoder for the SizeClassPool harness's input language."""

    (ALLOCATE, ALLOCATE_ZEROED, ALLOCATE_CHECKED, DEALLOCATE,
     DEALLOCATE_CHECKED, REALLOCATE, REALLOCATE_CHECKED, TRIM, DOUBLE_FREE,
     FOREIGN, SIZE_MISMATCH, BAD_REQUEST, VERIFY_ALL, NUM_OPS) = range(14)

    @staticmethod
    def config(block_log2=4, keep_idle=0, checks=True, block_source=False):
        """blocks of 4096 << block_log2 (0..7) bytes."""
        return bytes([block_log2 | (keep_idle << 3) | ((not checks) << 5) |
                      (block_source << 6)])

    @staticmethod
    def op(code):
        return in_range(code, 0, SizeClass.NUM_OPS - 1)

    @staticmethod
    def size(n):
        if n <= 1024:
            return bytes([0]) + in_range(n, 0, 1024)
        return bytes([6]) + in_range(n, 0, 8192)

    @staticmethod
    def alignment(a=None):
        return bytes([0 if a is None else a.bit_length()])

    @classmethod
    def alloc(cls, n, a=None, code=0):
        return cls.op(code) + cls.size(n) + cls.alignment(a)

    @classmethod
    def free(cls, block, checked=False):
        return cls.op(cls.DEALLOCATE_CHECKED if checked else cls.DEALLOCATE) + \
            bytes([block])

    @classmethod
    def realloc(cls, block, n, checked=False):
        return cls.op(cls.REALLOCATE_CHECKED if checked else cls.REALLOCATE) + \
            bytes([block]) + cls.size(n)

    @classmethod
    def trim(cls):
        return cls.op(cls.TRIM)

    @classmethod
    def double_free(cls, pick, checked):
        return cls.op(cls.DOUBLE_FREE) + bytes([pick, int(checked)])

    @classmethod
    def foreign(cls, n, checked, interior_block=None):
        out = cls.op(cls.FOREIGN) + in_range(n, 0, 1024)
        if interior_block is None:
            out += bytes([0])
        else:
            out += bytes([1, interior_block])
        return out + bytes([int(checked)])

    @classmethod
    def size_mismatch(cls, block, wrong, checked):
        return cls.op(cls.SIZE_MISMATCH) + bytes([block]) + \
            in_range(wrong, 0, 1024) + bytes([int(checked)])

    @classmethod
    def bad_request(cls, variant, pick=0):
        return cls.op(cls.BAD_REQUEST) + bytes([variant, pick])

    @classmethod
    def verify(cls):
        return cls.op(cls.VERIFY_ALL)


def size_class_pool_seeds():
    C = SizeClass
    seeds = {}
    seeds["classes"] = (
        C.config() + b"".join(C.alloc(n) for n in (0, 1, 16, 17, 100, 128, 129,
                                                   300, 1000, 1024)) +
        C.alloc(2000) + C.alloc(64, 64) + C.alloc(200, 128) + C.alloc(100, 2048) +
        C.alloc(40, None, C.ALLOCATE_ZEROED) + C.alloc(700, 32, C.ALLOCATE_CHECKED) +
        C.realloc(0, 10) + C.realloc(1, 500) + C.realloc(10, 3000, True) +
        C.realloc(11, 50) + C.free(2) + C.free(3, True) + C.trim() + C.verify())
    seeds["misuse"] = (
        C.config(block_log2=0, block_source=True) +
        b"".join(C.alloc(n) for n in (48, 48, 200, 64)) + C.free(1) +
        C.double_free(0, True) + C.double_free(0, False) +
        C.foreign(64, True) + C.foreign(64, False) +
        C.foreign(0, True, interior_block=1) + C.foreign(0, False, interior_block=2) +
        C.size_mismatch(0, 300, True) + C.size_mismatch(1, 16, False) +
        b"".join(C.bad_request(v, p) for v, p in ((0, 0), (1, 1), (2, 2), (3, 3))))
    seeds["churn_keep_idle"] = (
        C.config(block_log2=1, keep_idle=1) +
        b"".join(C.alloc(96) for _ in range(60)) +
        b"".join(C.free(0) for _ in range(55)) + C.trim() +
        b"".join(C.alloc(96) for _ in range(10)))
    seeds["unchecked"] = (
        C.config(block_log2=7, checks=False) +
        b"".join(C.alloc(n, 64) for n in (64, 192, 1024, 4000)) +
        C.realloc(0, 1000) + C.realloc(3, 8000) + C.double_free(0, True) +
        C.free(0) + C.free(0, True))
    return seeds


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


# ---- alloc/pool/buffer_cache_fuzzer.cc ----

class Cache:
    """Encoder for the BufferCache harness's input language."""

    (ALLOCATE, ALLOCATE_ZEROED, ALLOCATE_CHECKED, DEALLOCATE,
     DEALLOCATE_CHECKED, REALLOCATE, REALLOCATE_CHECKED, RELEASE, DOUBLE_FREE,
     FOREIGN, SIZE_MISMATCH, BAD_REQUEST, VERIFY_ALL, NUM_OPS) = range(14)
    # Misuse routes: checked free, checked realloc, hot free, hot realloc.
    FREE_CHECKED, REALLOC_CHECKED, FREE_HOT, REALLOC_HOT = range(4)

    def __init__(self, min_log2=0, budget=3, per_class=2, huge_pages=False,
                 bad_min=0):
        """min_buffer_bytes 4096 << min_log2; budget index into
        {0, 64K, 256K, 1M, 4M, 16M}; per_class 0..7 buffers."""
        self.min = 4096 << min_log2
        self.out = bytes([min_log2 | (budget << 2) | (per_class << 5),
                          int(huge_pages) | (bad_min << 1)])

    def op(self, code):
        self.out += in_range(code, 0, self.NUM_OPS - 1)
        return self

    def size(self, n):
        """Small (< min), near the threshold, large (<= 8 min) or huge."""
        if n < self.min:
            self.out += bytes([0]) + in_range(n, 0, self.min - 1)
        elif n - self.min < 128:
            self.out += bytes([3]) + in_range(n - self.min + 128, 0, 255)
        elif n <= 8 * self.min:
            self.out += bytes([4]) + in_range(n, self.min, 8 * self.min)
        else:
            self.out += bytes([7]) + in_range(n, self.min, (5 << 20) // 2)
        return self

    def alloc(self, n, a=None, code=0, checked=False):
        self.op(code)
        if code == self.ALLOCATE_ZEROED:
            self.out += bytes([int(checked)])
        self.size(n)
        self.out += bytes([0 if a is None else a.bit_length()])
        return self

    def free(self, block, checked=False):
        self.op(self.DEALLOCATE_CHECKED if checked else self.DEALLOCATE)
        self.out += bytes([block])
        return self

    def realloc(self, block, n, checked=False):
        self.op(self.REALLOCATE_CHECKED if checked else self.REALLOCATE)
        self.out += bytes([block])
        return self.size(n)

    def release(self):
        return self.op(self.RELEASE)

    def double_free(self, pick, route):
        self.op(self.DOUBLE_FREE)
        self.out += bytes([pick, route])
        return self

    def foreign(self, route, interior_block=None):
        self.op(self.FOREIGN)
        if interior_block is None:
            self.out += bytes([0, route])
        else:
            self.out += bytes([1, interior_block, route])
        return self

    def size_mismatch(self, block, route, by_size=True, extra=7):
        self.op(self.SIZE_MISMATCH)
        self.out += bytes([block, int(by_size)])
        if by_size:
            self.out += bytes([extra])
        self.out += bytes([route])
        return self

    def bad_request(self, variant, checked):
        self.op(self.BAD_REQUEST)
        self.out += bytes([variant, int(checked)])
        return self

    def verify(self):
        return self.op(self.VERIFY_ALL)


def buffer_cache_seeds():
    C = Cache
    seeds = {}
    c = C(min_log2=0, budget=3, per_class=2)
    for n in (100, 4096, 5000, 20000, 20000, 4095, 0):
        c.alloc(n)
    c.alloc(9000, 8192).alloc(70000, None, C.ALLOCATE_ZEROED, True)
    c.free(1).free(2, True).alloc(4096).alloc(5000, None, C.ALLOCATE_ZEROED)
    c.free(3).free(3).alloc(20000, None, C.ALLOCATE_CHECKED)
    c.realloc(0, 30000).realloc(1, 4100).realloc(2, 200, True).realloc(3, 60000)
    c.release().alloc(20000).verify()
    seeds["hits_and_misses"] = c.out

    c = C(min_log2=1, budget=1, per_class=1)
    for n in (8192, 8192, 16384, 16384, 30000, 60000, 65536):
        c.alloc(n)
    for _ in range(7):
        c.free(0)
    c.alloc(8192, 4096).alloc(16384, 65536).alloc(60000).release()
    seeds["eviction_budget"] = c.out

    c = C(min_log2=2, budget=0, per_class=0)
    c.alloc(16384).alloc(20000).free(0).alloc(16384).realloc(0, 100).free(0)
    seeds["no_caching"] = c.out

    c = C(min_log2=0, budget=5, per_class=3, bad_min=5)
    c.alloc(5000).alloc(9000).alloc(12000).alloc(100).free(1)
    for route in range(4):
        c.double_free(0, route)
        c.foreign(route)
        c.foreign(route, interior_block=0)
        c.size_mismatch(0, route, by_size=True)
        c.size_mismatch(1, route, by_size=False)
    c.release()
    for route in range(4):
        c.double_free(0, route)
    for v in range(4):
        c.bad_request(v, True).bad_request(v, False)
    seeds["misuse"] = c.out

    c = C(min_log2=3, budget=5, per_class=4, huge_pages=True)
    c.alloc(2 << 20).alloc((5 << 20) // 2).free(0).alloc(2 << 20)
    c.alloc(2 << 20, None, C.ALLOCATE_ZEROED).realloc(0, (9 << 20) // 4)
    c.release()
    seeds["huge_pages"] = c.out
    return seeds


# ---- alloc/pool/concurrent_pool_fuzzer.cc ----

class Concurrent:
    """Encoder for the ConcurrentPool harness's input language."""

    (TAKE, RETURN, RETURN_NEWEST, TRIM, OTHER_THREAD, DOUBLE_RETURN, FOREIGN,
     VERIFY_ALL, NUM_OPS) = range(9)
    GROW, UPSTREAM, FAIL = 0, 1, 2

    @staticmethod
    def config(cell=16, align_log2=1, cells=8, initial=1, policy=0, cache=4,
               checks=True, fill_slots=False, bad_small_cache=False):
        """cell: multiple of 8 up to 256; alignment 8 << align_log2 (0..3);
        cells per block 1..32; cache 2..17 cells."""
        a = (cell // 8 - 1) | (align_log2 << 5)
        b = (cells - 1) | (initial << 5) | (policy << 6)
        c = (cache - 2) | ((not checks) << 4) | (fill_slots << 5) | \
            (bad_small_cache << 6)
        return bytes([a, b, c])

    @staticmethod
    def op(code):
        return in_range(code, 0, Concurrent.NUM_OPS - 1)

    @classmethod
    def take(cls, n=1):
        return cls.op(cls.TAKE) * n

    @classmethod
    def ret(cls, cell):
        return cls.op(cls.RETURN) + bytes([cell])

    @classmethod
    def return_newest(cls, n):
        return cls.op(cls.RETURN_NEWEST) + bytes([n])

    @classmethod
    def trim(cls):
        return cls.op(cls.TRIM)

    @classmethod
    def other_thread(cls, takes, returns):
        return cls.op(cls.OTHER_THREAD) + bytes([takes, returns])

    @classmethod
    def double_return(cls, pick):
        return cls.op(cls.DOUBLE_RETURN) + bytes([pick])

    @classmethod
    def foreign(cls, kind, cell=0):
        return cls.op(cls.FOREIGN) + bytes([kind]) + \
            (bytes([cell]) if kind > 0 else b"")

    @classmethod
    def verify(cls):
        return cls.op(cls.VERIFY_ALL)


def concurrent_pool_seeds():
    P = Concurrent
    seeds = {}
    seeds["cache_refill_and_flush"] = (
        P.config(cell=24, cells=4, initial=0, cache=4) + P.take(10) +
        P.ret(3) + P.return_newest(8) + P.take(5) + P.trim() + P.take(2) +
        P.verify())
    seeds["other_thread"] = (
        P.config(cell=64, align_log2=3, cells=8, cache=6) + P.take(12) +
        P.other_thread(5, 7) + P.other_thread(0, 9) + P.take(3) +
        P.other_thread(20, 0) + P.return_newest(20) + P.trim())
    seeds["fail_policy"] = (
        P.config(cell=8, cells=3, initial=0, policy=P.FAIL, cache=2) +
        P.take(8) + P.ret(0) + P.take(3) + P.other_thread(4, 2) + P.take(2))
    seeds["upstream_overflow"] = (
        P.config(cell=128, cells=2, initial=1, policy=P.UPSTREAM, cache=8,
                 bad_small_cache=True) +
        P.take(9) + P.return_newest(4) + P.take(2) + P.trim() + P.take(3))
    seeds["misuse"] = (
        P.config(cell=40, cells=5, cache=3) + P.take(6) + P.ret(2) + P.ret(0) +
        P.double_return(0) + P.double_return(1) + P.foreign(0) +
        P.foreign(1, 0) + P.foreign(2, 1) + P.trim() + P.double_return(0) +
        P.verify())
    seeds["depot_path_unchecked"] = (
        P.config(cell=256, cells=4, cache=17, checks=False, fill_slots=True) +
        P.take(9) + P.return_newest(5) + P.take(2) + P.other_thread(3, 3) +
        P.foreign(0) + P.double_return(0) + P.trim())
    return seeds


HARNESSES = {
    "system_allocator": system_allocator_seeds,
    "tlsf_arena": tlsf_arena_seeds,
    "stacked_pool": stacked_pool_seeds,
    "size_class_pool": size_class_pool_seeds,
    "tensor": tensor_seeds,
    "buffer_cache": buffer_cache_seeds,
    "concurrent_pool": concurrent_pool_seeds,
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
