"""Tessera's external dependencies, for this workspace and for importers.

Usage from another workspace (see examples/consumer/WORKSPACE):

    local_repository(name = "tessera", path = "...")   # or http_archive
    load("@tessera//tools/build_defs:deps.bzl", "tessera_dependencies")
    tessera_dependencies()

Every repository is declared with `maybe()`: an importer that already declares
the real Abseil, GoogleTest, Highway or Google Benchmark repositories (before
calling this) keeps its own, because Tessera only uses their upstream labels.
Without them, the libraries come from Debian through pkg-config. GMP (Debian
libgmp-dev, which ships gmp.pc) is `@gmp//:gmp`.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load("//tools/build_defs:pkg_config.bzl", "pkg_config_repository")
load("//tools/build_defs:standins.bzl", "tessera_bazel_standins")

# Upstream Abseil label -> pkg-config module (Debian libabsl-dev 20220623).
_ABSEIL_TARGETS = {
    "absl/algorithm:container": "absl_algorithm_container",
    "absl/base:base": "absl_base",
    "absl/base:core_headers": "absl_core_headers",
    "absl/cleanup:cleanup": "absl_cleanup",
    "absl/container:btree": "absl_btree",
    "absl/container:fixed_array": "absl_fixed_array",
    "absl/container:flat_hash_map": "absl_flat_hash_map",
    "absl/container:flat_hash_set": "absl_flat_hash_set",
    "absl/container:inlined_vector": "absl_inlined_vector",
    "absl/container:node_hash_map": "absl_node_hash_map",
    "absl/flags:flag": "absl_flags",
    "absl/flags:parse": "absl_flags_parse",
    "absl/flags:usage": "absl_flags_usage",
    "absl/functional:any_invocable": "absl_any_invocable",
    "absl/functional:function_ref": "absl_function_ref",
    "absl/hash:hash": "absl_hash",
    "absl/memory:memory": "absl_memory",
    "absl/numeric:bits": "absl_bits",
    "absl/numeric:int128": "absl_int128",
    "absl/random:bit_gen_ref": "absl_random_bit_gen_ref",
    "absl/random:distributions": "absl_random_distributions",
    "absl/random:random": "absl_random_random",
    "absl/status:status": "absl_status",
    "absl/status:statusor": "absl_statusor",
    "absl/strings:str_format": "absl_str_format",
    "absl/strings:strings": "absl_strings",
    "absl/synchronization:synchronization": "absl_synchronization",
    "absl/time:time": "absl_time",
    "absl/types:optional": "absl_optional",
    "absl/types:span": "absl_span",
}

def tessera_dependencies():
    """Declares every repository Tessera needs, each only if not yet declared."""
    tessera_bazel_standins()

    maybe(
        pkg_config_repository,
        name = "com_google_absl",
        debian_package = "libabsl-dev",
        targets = _ABSEIL_TARGETS,
    )
    maybe(
        pkg_config_repository,
        name = "com_google_googletest",
        debian_package = "libgtest-dev libgmock-dev",
        targets = {
            ":gtest": "gtest",
            ":gtest_main": "gtest_main",
            ":gmock": "gmock",
            ":gmock_main": "gmock_main",
        },
    )
    maybe(
        pkg_config_repository,
        name = "com_github_google_highway",
        debian_package = "libhwy-dev",
        targets = {
            ":hwy": "libhwy",
            ":hwy_contrib": "libhwy-contrib",
            ":hwy_test_util": "libhwy-test",
        },
        deps = {
            ":hwy_contrib": ":hwy",
            ":hwy_test_util": ":hwy",
        },
    )
    maybe(
        pkg_config_repository,
        name = "com_github_google_benchmark",
        debian_package = "libbenchmark-dev",
        targets = {
            ":benchmark": "benchmark",
            # Debian ships libbenchmark_main.a without a .pc file of its own.
            ":benchmark_main": "benchmark -lbenchmark_main",
        },
        deps = {":benchmark_main": ":benchmark"},
    )
    maybe(
        pkg_config_repository,
        name = "gmp",
        debian_package = "libgmp-dev",
        targets = {":gmp": "gmp"},
    )
