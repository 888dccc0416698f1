#!/usr/bin/env bash
# Copyright 2026 The Tessera Authors.
#
# Line coverage of Tessera's unit tests plus the fuzzers' corpus replays
# (the <fuzzer>_regression tests), with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping, llvm-profdata-14,
# llvm-cov-14). Bazel's own `coverage` command needs remote tools that cannot
# be fetched offline, so this runs `bazel test` with the instrumentation
# flags, in its own output base, and merges the raw profiles itself.
#
#   tools/coverage.sh [TARGET_PATTERN...]
#       default: //alloc/... //tensor/... //fuzz/tensor/... (the tensor
#       engine's differential fuzzer lives under fuzz/)
#
# Prints one row per library file under alloc/ and tensor/ (tests, fuzzers,
# benchmarks and test helpers excluded) and a total per directory:
#
#   file                                   lines  covered  line%
#
# Environment: TESSERA_COVERAGE_OUTPUT_BASE (default
# ~/.cache/bazel_ob/coverage), TESSERA_COVERAGE_DIR (where the profiles, the
# merged .profdata and coverage.json go; default a temporary directory),
# TESSERA_BAZEL_JOBS (default 2). A failing test fails the script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

patterns=("$@")
((${#patterns[@]} > 0)) || patterns=(//alloc/... //tensor/... //fuzz/tensor/...)
output_base=${TESSERA_COVERAGE_OUTPUT_BASE:-$HOME/.cache/bazel_ob/coverage}
dir=${TESSERA_COVERAGE_DIR:-$(mktemp -d)}
mkdir -p "$dir/raw"
rm -f "$dir"/raw/*.profraw

flags=(
  --config=clang
  "--jobs=${TESSERA_BAZEL_JOBS:-2}"
  --copt=-fprofile-instr-generate
  --copt=-fcoverage-mapping
  --linkopt=-fprofile-instr-generate
  # %p: one file per process (death tests fork); %m: per binary.
  "--test_env=LLVM_PROFILE_FILE=$dir/raw/%p-%m.profraw"
  --nocache_test_results
  --build_tests_only
  # Self-contained binaries: the mapping of every library is in the binary
  # that ran it (with shared libraries it would sit in _solib .so files).
  --dynamic_mode=off
)

tools/bazel --output_base="$output_base" test "${flags[@]}" -- "${patterns[@]}"
bin=$(tools/bazel --output_base="$output_base" info "${flags[@]}" bazel-bin 2>/dev/null)

llvm-profdata-14 merge -sparse -o "$dir/merged.profdata" "$dir"/raw/*.profraw

# Every instrumented executable the tests ran: test binaries and fuzzers.
objects=()
while IFS= read -r file; do
  if readelf -S "$file" 2>/dev/null | grep -q __llvm_covmap; then
    objects+=(-object "$file")
  fi
done < <(find -L "$bin/alloc" "$bin/tensor" "$bin/fuzz" -type f -perm -u+x \
           ! -name '*.sh' ! -name '*.so' ! -path '*.runfiles/*' \
           ! -path '*/_objs/*' 2>/dev/null | sort)
((${#objects[@]} > 0)) || { echo "coverage.sh: no instrumented binaries" >&2; exit 1; }

llvm-cov-14 export -summary-only -instr-profile "$dir/merged.profdata" \
  "${objects[@]:1}" > "$dir/coverage.json"

python3 - "$dir/coverage.json" <<'PY'
import json, re, sys
data = json.load(open(sys.argv[1]))
rows = {}
for export in data["data"]:
    for f in export["files"]:
        name = f["filename"]
        m = re.search(r"(?:^|/)((?:alloc|tensor)/.*)$", name)
        if not m or "/external/" in name:
            continue
        path = m.group(1)
        if re.search(r"(_test|_fuzzer|_benchmark)\.cc$|/testing/|/test_[^/]*\.h$"
                     r"|_test_util|internal/test_allocator|violation_recorder", path):
            continue
        lines = f["summary"]["lines"]
        # The same header is seen by many binaries: keep the best view
        # (counts are merged per binary, not across them).
        prev = rows.get(path)
        if prev is None or lines["covered"] > prev[1]:
            rows[path] = (lines["count"], lines["covered"])
print("%-44s %7s %8s %7s" % ("file", "lines", "covered", "line%"))
totals = {}
for path in sorted(rows):
    count, covered = rows[path]
    top = path.split("/")[0]
    t = totals.setdefault(top, [0, 0])
    t[0] += count
    t[1] += covered
    pct = 100.0 * covered / count if count else 100.0
    print("%-44s %7d %8d %6.1f%%" % (path, count, covered, pct))
for top, (count, covered) in sorted(totals.items()):
    print("%-44s %7d %8d %6.1f%%" % ("TOTAL " + top + "/", count, covered,
                                    100.0 * covered / count if count else 100.0))
PY
echo "coverage.sh: profiles and coverage.json in $dir" >&2
