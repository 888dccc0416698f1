#!/usr/bin/env bash
# Copyright 2026 The Tessera Authors.
#
# CI's fuzz smoke: builds every cc_fuzz_test with --config=libfuzzer
# (ASan+UBSan) and fuzzes each for FUZZ_SECONDS (default 30) from its seed
# corpus. Any crash, leak or sanitizer report fails the run. Then runs the
# OSS-Fuzz build script the way OSS-Fuzz would and checks its fuzzers.
#
#   fuzz/ci_fuzz_smoke.sh [extra bazel flags, e.g. --disk_cache=DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-30}
# Explicit packages, not //...: see fuzz/README.md.
fuzzers=$(tools/bazel query 'attr(tags, "\bfuzz\b", tests(//alloc/... + //tensor/... + //fuzz/...))' 2>/dev/null |
  sed 's/_regression$//')
if [[ -z "$fuzzers" ]]; then
  echo "ci_fuzz_smoke: no fuzzers found" >&2
  exit 1
fi
tools/bazel build "$@" --config=libfuzzer $(printf '%s_run ' $fuzzers)
artifacts=$(mktemp -d /tmp/tessera_fuzz_artifacts.XXXXXX)
for fuzzer in $fuzzers; do
  echo "--- ${fuzzer}: ${seconds} s"
  corpus=$(mktemp -d /tmp/tessera_fuzz_corpus.XXXXXX)
  tools/bazel run "$@" --config=libfuzzer "${fuzzer}_run" -- \
    --time="$seconds" --corpus_dir="$corpus" --artifacts_dir="$artifacts/${fuzzer##*:}"
  rm -rf "$corpus"
done
rm -rf "$artifacts"

echo "--- OSS-Fuzz build script"
fuzz/oss_fuzz_build_test.sh 10
