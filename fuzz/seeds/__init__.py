# Copyright 2026 The Tessera Authors.
"""Seed encoders of the op-program fuzz harnesses (fuzz/make_seed.py)."""
