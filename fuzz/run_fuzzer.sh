#!/usr/bin/env bash
# Copyright 2026 The Tessera Authors.
#
# The `<name>_run` launcher of cc_fuzz_test: fuzzes one target for a bounded
# time, growing a corpus directory, starting from the seed corpus.
#
#   tools/bazel run --config=libfuzzer //alloc/system:system_allocator_fuzzer_run -- \
#       [--time=SECONDS] [--corpus_dir=DIR] [--artifacts_dir=DIR] [-- LIBFUZZER_FLAGS...]
#
# --time         seconds to fuzz (-max_total_time), default 60.
# --corpus_dir   where new inputs go, default /tmp/tessera_fuzz/<name>/corpus.
#                The seeds are read from a separate read-only directory.
# --artifacts_dir  where crash-*/leak-*/timeout-* inputs go, default
#                /tmp/tessera_fuzz/<name>/artifacts.
# Relative paths are taken from the directory `bazel run` was started in.
# Exits with libFuzzer's status: non-zero on any crash, leak or sanitizer
# report. The [libfuzzer] section of the target's .options file and its
# dictionary are applied.
set -euo pipefail

binary="" engine_file="" dict="" options="" time=60 corpus_dir="" artifacts_dir=""
seeds=()
extra=()
while (($# > 0)); do
  case $1 in
    --binary=*) binary=${1#*=} ;;
    --engine_file=*) engine_file=${1#*=} ;;
    --dict=*) dict=${1#*=} ;;
    --options=*) options=${1#*=} ;;
    --time=*) time=${1#*=} ;;
    --corpus_dir=*) corpus_dir=${1#*=} ;;
    --artifacts_dir=*) artifacts_dir=${1#*=} ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "run_fuzzer.sh: unknown flag $1 (libFuzzer flags go after --)" >&2; exit 2 ;;
    *) seeds+=("$1") ;;
  esac
  shift
done

name=$(basename "$binary")
engine=$(cat "$engine_file")
if [[ $engine != libfuzzer ]]; then
  echo "run_fuzzer.sh: $name was built without a fuzzing engine ($engine);" \
    "rerun with: tools/bazel run --config=libfuzzer ..." >&2
  exit 2
fi

absolute() {
  if [[ $1 == /* ]]; then echo "$1"; else echo "${BUILD_WORKING_DIRECTORY:-$PWD}/$1"; fi
}
corpus_dir=$(absolute "${corpus_dir:-/tmp/tessera_fuzz/$name/corpus}")
artifacts_dir=$(absolute "${artifacts_dir:-/tmp/tessera_fuzz/$name/artifacts}")
mkdir -p "$corpus_dir" "$artifacts_dir"

seed_dir=$(mktemp -d)
trap 'rm -rf "$seed_dir"' EXIT
for seed in "${seeds[@]}"; do cp "$seed" "$seed_dir/"; done

flags=(-max_total_time="$time" -artifact_prefix="$artifacts_dir/" -print_final_stats=1)
[[ -n $dict ]] && flags+=(-dict="$dict")
if [[ -n $options ]]; then
  # OSS-Fuzz .options: "key = value" lines under [libfuzzer].
  while read -r flag; do flags+=("$flag"); done < <(
    awk -F'=' '/^\[/{s=($0=="[libfuzzer]")} s && NF==2 {
      gsub(/[ \t]/,"",$1); gsub(/[ \t]/,"",$2); print "-" $1 "=" $2 }' "$options")
fi

echo "fuzzing $name for ${time}s: corpus $corpus_dir, artifacts $artifacts_dir" >&2
"$binary" "${flags[@]}" "${extra[@]}" "$corpus_dir" "$seed_dir"
