#!/usr/bin/env bash
# A short run of the GMP driver: the table has a glibc row at 1.00x and a
# SizeClassPool row with figures, both children proved their malloc, and an
# unknown subject is refused by name. (Figures from a test are meaningless:
# the run is tiny and the build is not optimised.)
set -euo pipefail
driver="$1"
out=$("$driver" --subjects=glibc,size_class --rounds=1 --repetitions=1 \
  --min_time=0.01 2>/dev/null)
echo "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -Eq '^glibc +[0-9.]+ ns.? +1\.00x +[0-9.]+ ns.? +1\.00x' <<<"$out" ||
  fail "no glibc row at 1.00x"
grep -Eq '^size_class +[0-9.]+ ns.? +[0-9.]+x +[0-9.]+ ns.? +[0-9.]+x' <<<"$out" ||
  fail "no size_class row"
grep -Eq '^glibc .*glibc.*malloc in ' <<<"$out" || fail "no proof for glibc"
if err=$("$driver" --subjects=glibc,nonsense 2>&1); then
  fail "an unknown subject was accepted"
fi
grep -q "unknown subject 'nonsense'" <<<"$err" || fail "refusal does not name it: $err"
echo PASS
