#!/usr/bin/env bash
# Copyright 2026 The Tessera Authors.
#
# The `<name>_regression` test of cc_fuzz_test: replays a fuzz target's seed
# corpus once, input by input, and fails on the first finding.
#
#   regression_test.sh BINARY [--dict=FILE] [--options=FILE] CORPUS_FILE...
#
# The files are copied into one directory (runfiles scatter them) and the
# binary runs as `BINARY -runs=0 [-dict=FILE] DIR`: libFuzzer executes every
# input of DIR and stops; the replay main (builds without a fuzzing engine)
# ignores the flags and runs every file. The dictionary is passed so that a
# malformed one fails here rather than in the first real fuzzing run. The
# .options (max_len, ...) are not: libFuzzer would truncate longer seeds,
# and the replay must see them whole.
set -euo pipefail

binary=$1
shift
flags=()
while (($# > 0)) && [[ $1 == --* ]]; do
  case $1 in
    --dict=*) flags+=("-dict=${1#--dict=}") ;;
    --options=*) ;;
    *) echo "regression_test.sh: unknown flag $1" >&2; exit 2 ;;
  esac
  shift
done

corpus_dir="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
mkdir -p "$corpus_dir"
i=0
for file in "$@"; do
  # Prefix an index: seeds from different directories may share a name.
  cp "$file" "$corpus_dir/$(printf '%04d' "$i")_$(basename "$file")"
  i=$((i + 1))
done
echo "replaying $i seed inputs with $binary"
exec "$binary" -runs=0 "${flags[@]}" "$corpus_dir"
