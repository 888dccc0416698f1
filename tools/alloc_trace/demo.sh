#!/bin/sh
# Records a real program that nobody here wrote with liballoc_trace.so and
# replays its allocations in the shootout against every allocator:
#
#   tools/alloc_trace/demo.sh compiler [OUT]  # g++ -O2 -c of Debian's gtest-all.cc
#   tools/alloc_trace/demo.sh python [OUT]    # /usr/bin/python3 demo/bigint.py
#
# OUT (default /tmp/alloc_trace_demo_<which>) gets the traces and, in
# OUT/report, the shootout's report.md, SVG charts and results.json.
# ROUNDS (default 5) sets the shootout's rounds, ALLOCATORS (default all) its
# --allocators list; BAZEL (default tools/bazel)
# the Bazel command, e.g. BAZEL="tools/bazel --output_base=/tmp/ob", and
# BAZEL_FLAGS extra build flags (e.g. --disk_cache=DIR).
#
# The compiler case compiles googletest's single-file build
# (/usr/src/googletest, from Debian's libgtest-dev, which tools/bazel
# installs). g++ is a driver that runs cc1plus and as as child processes:
# "%p" in ALLOC_TRACE_FILE gives each process its own trace, and the one
# replayed is cc1plus's (the compiler proper, by far the largest).
set -eu
cd "$(dirname "$0")/../.."
which=${1:-}
out=${2:-/tmp/alloc_trace_demo_$which}
bazel=${BAZEL:-tools/bazel}
case "$which" in
  compiler | python) ;;
  *)
    echo "usage: $0 compiler|python [OUT]" >&2
    exit 2
    ;;
esac
$bazel build --config=opt ${BAZEL_FLAGS:-} \
  //tools/alloc_trace:liballoc_trace.so \
  //bench/shootout:shootout
bin=$($bazel info --config=opt bazel-bin 2>/dev/null)
recorder=$bin/tools/alloc_trace/liballoc_trace.so
mkdir -p "$out"
rm -f "$out"/*.trace

if [ "$which" = compiler ]; then
  src=/usr/src/googletest/googletest
  if [ ! -f "$src/src/gtest-all.cc" ]; then
    echo "$src/src/gtest-all.cc is missing: apt-get install libgtest-dev" >&2
    exit 2
  fi
  set -x
  /usr/bin/time -f "untraced: %e s, max RSS %M KiB" \
    g++ -O2 -c "$src/src/gtest-all.cc" -I"$src" -I"$src/include" \
    -o "$out/gtest-all.o"
  /usr/bin/time -f "traced: %e s, max RSS %M KiB" \
    env ALLOC_TRACE_FILE="$out/gcc.%p.trace" LD_PRELOAD="$recorder" \
    g++ -O2 -c "$src/src/gtest-all.cc" -I"$src" -I"$src/include" \
    -o "$out/gtest-all.o"
  set +x
  ls -lS "$out"/gcc.*.trace
  trace=$(ls -S "$out"/gcc.*.trace | head -n 1)
else
  set -x
  /usr/bin/time -f "untraced: %e s, max RSS %M KiB" \
    /usr/bin/python3 tools/alloc_trace/demo/bigint.py
  /usr/bin/time -f "traced: %e s, max RSS %M KiB" \
    env ALLOC_TRACE_FILE="$out/python.trace" LD_PRELOAD="$recorder" \
    /usr/bin/python3 tools/alloc_trace/demo/bigint.py
  set +x
  trace=$out/python.trace
fi

echo "replaying $trace"
"$bin/bench/shootout/shootout" --trace="$trace" --rounds="${ROUNDS:-5}" \
  ${ALLOCATORS:+--allocators="$ALLOCATORS"} --out="$out/report"
