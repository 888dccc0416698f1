#!/bin/bash
# Copyright 2026 The Tessera Authors.
#
# Runs fuzz/oss_fuzz_build.sh the way OSS-Fuzz's libFuzzer+ASan build does,
# then checks that $OUT holds every fuzz target with its seed corpus, and that
# each fuzzer runs its whole seed corpus (-runs=0) and then fuzzes briefly
# without a finding. Run by .ci/run (it builds everything, so it is not a
# `bazel test`):
#
#   fuzz/oss_fuzz_build_test.sh [SECONDS_PER_FUZZER]   (default 10)
#
# Uses its own Bazel output base (TESSERA_BAZEL_OUTPUT_BASE, default
# ~/.cache/bazel_ob/oss_fuzz_build_test) so it neither blocks nor invalidates
# other builds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${1:-10}
work=$(mktemp -d)


# What OSS-Fuzz's base-builder sets for `compile` with libFuzzer + ASan.
export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
export OUT="$work/out"
export SRC="$PWD/.." WORK="$work/work"
export TESSERA_BAZEL_OUTPUT_BASE=${TESSERA_BAZEL_OUTPUT_BASE:-$HOME/.cache/bazel_ob/oss_fuzz_build_test}
mkdir -p "$OUT" "$WORK"

fuzz/oss_fuzz_build.sh

fail() { echo "oss_fuzz_build_test: FAIL: $*" >&2; exit 1; }

fuzzers=()
for file in "$OUT"/*; do
  [[ -f $file && -x $file ]] && fuzzers+=("$file")
done
((${#fuzzers[@]} > 0)) || fail "no fuzzer in \$OUT"
expected=$(fuzz/oss_fuzz_build.sh --list | wc -l)
((${#fuzzers[@]} == expected)) || fail "${#fuzzers[@]} fuzzers in \$OUT, $expected targets"

for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  # (Into a file: `nm | grep -q` would die of SIGPIPE under pipefail.)
  nm "$fuzzer" > "$work/symbols"
  grep -q LLVMFuzzerTestOneInput "$work/symbols" || fail "$name has no LLVMFuzzerTestOneInput"
  grep -q __asan_init "$work/symbols" || fail "$name is not built with ASan"
  grep -qi "fuzzer.*RunOneTest\|LLVMFuzzerRunDriver" "$work/symbols" || fail "$name does not link libFuzzer"
  [[ -f $OUT/${name}_seed_corpus.zip ]] || fail "$name has no seed corpus"
  corpus="$work/corpus/$name"
  mkdir -p "$corpus"
  unzip -q "$OUT/${name}_seed_corpus.zip" -d "$corpus"
  seeds=$(ls "$corpus" | wc -l)
  ((seeds > 0)) || fail "$name: empty seed corpus"
  dict=()
  [[ -f $OUT/$name.dict ]] && dict=("-dict=$OUT/$name.dict")
  echo "== $name: $seeds seeds" >&2
  (cd "$work" && "$fuzzer" -runs=0 "${dict[@]}" "$corpus") ||
    fail "$name fails on its seed corpus"
  (cd "$work" && "$fuzzer" -max_total_time="$seconds" "${dict[@]}" \
    -artifact_prefix="$work/" "$work/corpus/$name") ||
    fail "$name found something in ${seconds}s (input kept in $work)"
done
echo "oss_fuzz_build_test: PASS: ${#fuzzers[@]} fuzzers built and run on their seed corpora" >&2
rm -rf "$work"
