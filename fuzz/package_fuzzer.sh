#!/usr/bin/env bash
# Copyright 2026 The Tessera Authors.
#
# Builds the `<name>_oss_fuzz_package` tar of cc_fuzz_test, laid out as
# OSS-Fuzz expects $OUT: <name>, <name>_seed_corpus.zip, <name>.dict,
# <name>.options (the last three only when the target has them).
#
#   package_fuzzer.sh OUT.tar NAME BINARY DICT|- OPTIONS|- [CORPUS_FILE...]
set -euo pipefail

out=$1 name=$2 binary=$3 dict=$4 options=$5
shift 5

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$binary" "$stage/$name"
[[ $dict != - ]] && cp "$dict" "$stage/$name.dict"
[[ $options != - ]] && cp "$options" "$stage/$name.options"
if (($# > 0)); then
  # -j: flat, as OSS-Fuzz unpacks seed corpora; -X: no extra attributes.
  zip -q -j -X "$stage/${name}_seed_corpus.zip" "$@"
fi
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
  -cf "$out" .
