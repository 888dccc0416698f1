#!/usr/bin/env python3
# Copyright 2026 The Tessera Authors.
"""Writes the seed corpora of Tessera's op-program fuzz harnesses.

    python3 fuzz/make_seed.py system_allocator alloc/system/corpus

Each seed is a short program in the harness's input language, spelled with
the encoders of fuzz/seeds/ (encoding.py, allocators.py, tensor.py) so that
it reads as what it does. The encoders mirror
fuzz/byte_reader.h: `ConsumeIntegralInRange(lo, hi)` reads the fewest
little-endian bytes that cover hi - lo and reduces modulo the range width.
Seeds are meant to reach every op and every misuse path once, so that fuzzing
(and the regression replay) starts from full coverage of the decoder.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from seeds.allocators import (  # noqa: E402
    buffer_cache_seeds,
    concurrent_pool_seeds,
    size_class_pool_seeds,
    stacked_pool_seeds,
    system_allocator_seeds,
    tlsf_arena_seeds,
)
from seeds.tensor import tensor_seeds  # noqa: E402


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
