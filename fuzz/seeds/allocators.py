# Copyright 2026 The Tessera Authors.
"""Seeds of the allocator harnesses: system allocators, TLSF arena, the pools
and the buffer cache."""

from seeds.encoding import in_range


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
