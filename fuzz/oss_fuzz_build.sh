#!/bin/bash -eu
# Copyright 2026 The Tessera Authors.
#
# Builds every Tessera fuzz target for OSS-Fuzz / ClusterFuzzLite, following
# the build.sh contract: reads $CC, $CXX, $CFLAGS, $CXXFLAGS,
# $LIB_FUZZING_ENGINE and writes into $OUT, for each target,
#   <fuzzer>  <fuzzer>_seed_corpus.zip  <fuzzer>.dict  <fuzzer>.options
# (.clusterfuzzlite/build.sh calls this; so can an OSS-Fuzz project's build.sh.)
#
# How: Bazel builds each cc_fuzz_test's <name>_oss_fuzz_package (found by its
# "oss_fuzz_package" tag) with
#   --define=fuzzing_engine=oss_fuzz   the binary links no engine of its own,
#   --linkopt=$LIB_FUZZING_ENGINE      ...OSS-Fuzz's engine instead,
#   --action_env=CC=$CC (and CXX)      OSS-Fuzz's clang,
#   --conlyopt/--cxxopt/--linkopt      each flag of $CFLAGS/$CXXFLAGS,
#   --define=tessera_sanitizer=1       the expensive internal checks on,
# and unpacks the packages into $OUT.
#
# Tessera links Debian's Abseil and GoogleTest (libstdc++ builds), so
# -stdlib=libc++ is dropped from $CXXFLAGS, and MemorySanitizer (which needs
# every library instrumented) is not supported.
#
# Optional environment:
#   TESSERA_BAZEL              the Bazel to run (default: tools/bazel)
#   TESSERA_BAZEL_OUTPUT_BASE  --output_base for it (default: Bazel's own)
#   TESSERA_FUZZ_SCOPE         query scope for fuzz targets (default: every
#                              top-level directory but bazel-* symlinks)
#   TESSERA_BAZEL_JOBS         --jobs (default: 2)

cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${CC:?}" "${CXX:?}" "${CFLAGS?}" "${CXXFLAGS?}" "${LIB_FUZZING_ENGINE?}" "${OUT:?}"
bazel=${TESSERA_BAZEL:-tools/bazel}
startup=()
if [[ -n ${TESSERA_BAZEL_OUTPUT_BASE:-} ]]; then
  startup+=("--output_base=$TESSERA_BAZEL_OUTPUT_BASE")
fi
# Default scope: every top-level package directory, but not Bazel's
# convenience symlinks (bazel-*: from another output base they are not
# recognised and would drag external repositories in) or .bazelignore'd ones.
default_scope() {
  local dir dirs=()
  for dir in */; do
    dir=${dir%/}
    [[ $dir == bazel-* || -L $dir ]] && continue
    grep -qxF "$dir" .bazelignore 2>/dev/null && continue
    dirs+=("//$dir/...")
  done
  local IFS=+
  echo "${dirs[*]}"
}
scope=${TESSERA_FUZZ_SCOPE:-$(default_scope)}

flags=(
  "--jobs=${TESSERA_BAZEL_JOBS:-2}"
  "--action_env=CC=$CC"
  "--action_env=CXX=$CXX"
  --define=fuzzing_engine=oss_fuzz
  --define=tessera_sanitizer=1
  # Symbols for the sanitizers' stack traces (fastbuild would strip them).
  --strip=never
  # The packages are tagged manual (not part of `bazel build //...`).
  --build_tag_filters=
  # A newer OSS-Fuzz clang may warn where clang 14 did not: not fatal here.
  "--per_file_copt=^(alloc|tensor|fuzz|bench|tools|examples)/.*@-Wno-error"
)
for flag in $CFLAGS; do
  flags+=("--conlyopt=$flag" "--linkopt=$flag")
done
for flag in $CXXFLAGS; do
  [[ $flag == -stdlib=libc++ ]] && continue
  flags+=("--cxxopt=$flag")
done
for flag in $LIB_FUZZING_ENGINE; do
  flags+=("--linkopt=$flag")
done

mapfile -t packages < <(
  "$bazel" "${startup[@]}" query --keep_going --noshow_progress \
    "attr(tags, '\\boss_fuzz_package\\b', $scope)" 2>/dev/null | sort)
if [[ ${1:-} == --list ]]; then  # for oss_fuzz_build_test.sh
  printf '%s\n' "${packages[@]}"
  exit 0
fi
if ((${#packages[@]} == 0)); then
  echo "oss_fuzz_build.sh: no *_oss_fuzz_package targets under $scope" >&2
  exit 1
fi
echo "oss_fuzz_build.sh: building ${#packages[@]} fuzz targets: ${packages[*]}" >&2

"$bazel" "${startup[@]}" build "${flags[@]}" "${packages[@]}"
bin=$("$bazel" "${startup[@]}" info "${flags[@]}" bazel-bin 2>/dev/null)

mkdir -p "$OUT"
for label in "${packages[@]}"; do
  package=${label#//}
  package=${package%%:*}
  name=${label##*:}
  name=${name%_oss_fuzz_package}
  tar -xf "$bin/$package/${name}_oss_fuzz.tar" -C "$OUT"
  chmod u+w "$OUT/$name"*
  echo "oss_fuzz_build.sh: $OUT/$name" >&2
done
