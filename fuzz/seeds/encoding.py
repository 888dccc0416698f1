# Copyright 2026 The Tessera Authors.
"""The byte encoding every harness reads with fuzz/byte_reader.h."""


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
