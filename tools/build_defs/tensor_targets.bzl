"""Macros for the tensor engine's two repeated target shapes.

`hwy_kernel_library`: a Highway kernel family, `kernels/<family>-inl.h`
compiled once per SIMD target by its `.cc` (foreach_target.h), plus its tests,
each of which runs every case on every compiled target.

`benchmark_with_numpy`: a Google Benchmark binary (`testonly`, tagged
"benchmark", never run by `bazel test //...`) with, when it has one, the
NumPy script that times the same cases as runtime data.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("//tools/build_defs:copts.bzl", "TESSERA_COPTS", "TESSERA_TEST_COPTS")

# Sanitizer builds (clang -O1 plus instrumentation) take minutes per Highway
# target of a kernel file, so they compile AVX3, AVX2 and the scalar fallback
# only: the widest, the common and the narrowest vectors, which between them
# exercise every tail shape. Fastbuild and opt compile and test every target.
#
# Kernel functions start on a 64-byte boundary, so where a hot loop sits
# against cache lines and fetch blocks does not depend on how much code
# precedes it in its file (an unrelated change once moved BinaryContiguous
# by 16 bytes and a 1e3-element add measured several percent slower). It
# costs ~2% of a binary's size.
HWY_KERNEL_COPTS = ["-falign-functions=64"] + select({
    "//tools/build_defs:sanitizer_build": ["-DHWY_DISABLED_TARGETS=(HWY_SSSE3|HWY_SSE4)"],
    "//conditions:default": [],
})

_HWY = "@com_github_google_highway//:hwy"

def hwy_kernel_library(
        name,
        srcs,
        hdrs,
        textual_hdrs,
        deps = [],
        tests = {},
        extra_copts = [],
        visibility = None):
    """A kernel library compiled per Highway target, and its per-target tests.

    Args:
      name: the library, e.g. "unary_kernels".
      srcs: the .cc files that include the -inl.h through foreach_target.h.
      hdrs: the dispatching header(s).
      textual_hdrs: the -inl.h files (re-included once per target).
      deps: the library's deps besides Highway.
      tests: test name -> test source; each test depends on the library,
        Highway's test utilities, :misaligned_buffer, :kernel_values and
        gtest_main, and is compiled with
        -DHWY_IS_TEST (every target, not only the best one).
      extra_copts: copts added to the library and its tests (e.g.
        "-ffp-contract=off" where results must not change with FMA).
      visibility: the library's visibility (default: the package's).
    """
    cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        copts = TESSERA_COPTS + HWY_KERNEL_COPTS + extra_copts,
        textual_hdrs = textual_hdrs,
        visibility = visibility,
        deps = deps + [_HWY],
    )
    for test_name, test_src in tests.items():
        cc_test(
            name = test_name,
            srcs = [test_src],
            copts = TESSERA_TEST_COPTS + HWY_KERNEL_COPTS + ["-DHWY_IS_TEST"] + extra_copts,
            deps = [
                ":" + name,
                # Every kernel test feeds misaligned operands on purpose.
                ":misaligned_buffer",
                ":kernel_values",
                _HWY,
                "@com_github_google_highway//:hwy_test_util",
                "@com_google_googletest//:gtest_main",
            ],
        )

def benchmark_with_numpy(name, srcs, deps, numpy_script = None):
    """A Google Benchmark binary and, if given, its NumPy counterpart script.

    Args:
      name: the binary, e.g. "reduce_benchmark".
      srcs: its sources.
      deps: its deps besides Google Benchmark.
      numpy_script: the script that times the same cases with NumPy
        (`/usr/bin/python3 <package>/<script>`), or None.
    """
    cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        copts = TESSERA_COPTS,
        # With the timing the scripts share (numpy_timing.py, beside them).
        data = [numpy_script, "numpy_timing.py"] if numpy_script else [],
        tags = ["benchmark"],
        deps = deps + ["@com_github_google_benchmark//:benchmark"],
    )
