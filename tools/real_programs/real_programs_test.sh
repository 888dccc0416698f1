#!/usr/bin/env bash
# Bazel runs this from the runfiles root; the arguments name the library
# under test (see BUILD). Fails unless every program's result equals glibc's.
set -euo pipefail
script=tools/real_programs/real_programs.py
work="${TEST_TMPDIR:-/tmp}/real_programs"

# The proof is not a formality: a library that does not define malloc (zlib)
# preloads fine, and must be refused before anything is measured.
if err=$(/usr/bin/python3 "$script" --programs=sqlite --mimalloc= \
    --library=/lib/x86_64-linux-gnu/libz.so.1 --workdir="$work" 2>&1); then
  echo "FAIL: a preload that is not a malloc was accepted: $err" >&2
  exit 1
fi
grep -q "refusing to report" <<<"$err" || { echo "FAIL: $err" >&2; exit 1; }

exec /usr/bin/python3 "$script" --workdir="$work" "$@"
