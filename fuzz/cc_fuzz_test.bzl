"""`cc_fuzz_test`: a libFuzzer-style fuzz target, in the style of rules_fuzzing.

    load("//fuzz:cc_fuzz_test.bzl", "cc_fuzz_test")

    cc_fuzz_test(
        name = "system_allocator_fuzzer",
        srcs = ["system_allocator_fuzzer.cc"],
        corpus = glob(["corpus/system_allocator_fuzzer/**"]),
        dict = "system_allocator_fuzzer.dict",
        options = "system_allocator_fuzzer.options",
        deps = [":system_allocator", "//fuzz:harness_support"],
    )

`srcs` define `extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t)`.
The macro declares:

  <name>                    the fuzz binary. Under --config=libfuzzer
                            (--define=fuzzing_engine=libfuzzer) it links
                            libFuzzer (-fsanitize=fuzzer); under
                            --define=fuzzing_engine=oss_fuzz it links nothing
                            itself (fuzz/oss_fuzz_build.sh adds
                            $LIB_FUZZING_ENGINE); otherwise it links
                            //fuzz:replay_main, a plain main() that runs the
                            harness over files and directories, so it builds
                            with gcc too.
  <name>_regression         a test replaying the seed corpus (`-runs=0`, which
                            the replay main accepts too). Runs in every
                            `tools/bazel test //...`.
  <name>_run                a launcher: fuzzes for a given time into a corpus
                            directory (needs --config=libfuzzer):
                              tools/bazel run --config=libfuzzer //pkg:<name>_run -- \
                                  --time=600 --corpus_dir=/tmp/corpus
  <name>_oss_fuzz_package   <name>_oss_fuzz.tar holding <name>,
                            <name>_seed_corpus.zip, <name>.dict and
                            <name>.options, as OSS-Fuzz lays them out in $OUT.
  <name>_corpus             a filegroup of the seed corpus.

The engine is chosen with --define rather than a Starlark flag because a flag's
label differs inside and outside this repository on Bazel 4. Labels of this
file's own helpers go through Label() so the macro works from another
workspace that imports Tessera.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library")

_LIBFUZZER = str(Label("//tools/build_defs:libfuzzer_engine"))
_OSS_FUZZ = str(Label("//fuzz:oss_fuzz_engine"))
_REPLAY_MAIN = str(Label("//fuzz:replay_main"))
_REGRESSION_SCRIPT = str(Label("//fuzz:regression_test.sh"))
_RUN_SCRIPT = str(Label("//fuzz:run_fuzzer.sh"))
_PACKAGE_SCRIPT = str(Label("//fuzz:package_fuzzer.sh"))
_ENGINE_FILE = str(Label("//fuzz:engine"))

def cc_fuzz_test(
        name,
        srcs,
        deps = [],
        corpus = [],
        dict = None,
        options = None,
        copts = [],
        linkopts = [],
        size = "small",
        timeout = None,
        tags = [],
        visibility = None,
        **kwargs):
    """Declares a fuzz binary, its corpus regression test, launcher and package.

    Args:
      name: the fuzz binary's name; the other targets are named after it.
      srcs: the harness sources (defining LLVMFuzzerTestOneInput).
      deps: what the harness uses.
      corpus: seed corpus files (usually a glob of a directory).
      dict: optional libFuzzer dictionary file.
      options: optional OSS-Fuzz .options file ([libfuzzer] key = value).
      copts: extra compiler options for the harness.
      linkopts: extra linker options for the binary.
      size: size of the regression test.
      timeout: timeout of the regression test.
      tags: tags for every target; the regression test also gets "fuzz".
      visibility: visibility of the binary and the package.
      **kwargs: passed to the harness's cc_library (e.g. defines).
    """
    cc_library(
        name = name + "_harness",
        srcs = srcs,
        deps = deps,
        copts = copts,
        testonly = True,
        # LLVMFuzzerTestOneInput is only referenced by the engine's main.
        alwayslink = True,
        tags = tags,
        visibility = ["//visibility:private"],
        **kwargs
    )

    cc_binary(
        name = name,
        deps = [":" + name + "_harness"] + select({
            _LIBFUZZER: [],
            _OSS_FUZZ: [],
            "//conditions:default": [_REPLAY_MAIN],
        }),
        linkopts = linkopts + select({
            _LIBFUZZER: ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        testonly = True,
        tags = tags,
        visibility = visibility,
    )

    native.filegroup(
        name = name + "_corpus",
        srcs = corpus,
        testonly = True,
        visibility = visibility,
    )

    data = [":" + name, ":" + name + "_corpus"]
    flag_args = []
    if dict:
        data.append(dict)
        flag_args.append("--dict=$(rootpath %s)" % dict)
    if options:
        data.append(options)
        flag_args.append("--options=$(rootpath %s)" % options)

    native.sh_test(
        name = name + "_regression",
        srcs = [_REGRESSION_SCRIPT],
        args = ["$(rootpath :%s)" % name] + flag_args +
               (["$(rootpaths :%s_corpus)" % name] if corpus else []),
        data = data,
        size = size,
        timeout = timeout,
        tags = tags + ["fuzz"],
    )

    native.sh_binary(
        name = name + "_run",
        srcs = [_RUN_SCRIPT],
        args = [
            "--binary=$(rootpath :%s)" % name,
            "--engine_file=$(rootpath %s)" % _ENGINE_FILE,
        ] + flag_args + (["$(rootpaths :%s_corpus)" % name] if corpus else []),
        data = data + [_ENGINE_FILE],
        testonly = True,
        # Not "manual": .bazelrc's --build_tag_filters=-manual would then
        # refuse even `bazel run` of it. Building it only links a script.
        tags = tags,
    )

    package_srcs = [":" + name, ":" + name + "_corpus"]
    package_args = ["$(location :%s)" % name]
    package_args.append("$(location %s)" % dict if dict else "-")
    package_args.append("$(location %s)" % options if options else "-")
    native.genrule(
        name = name + "_oss_fuzz_package",
        srcs = package_srcs + ([dict] if dict else []) + ([options] if options else []),
        outs = [name + "_oss_fuzz.tar"],
        cmd = "$(location %s) $@ %s %s %s" % (
            _PACKAGE_SCRIPT,
            name,
            " ".join(package_args),
            "$(locations :%s_corpus)" % name if corpus else "",
        ),
        tools = [_PACKAGE_SCRIPT],
        testonly = True,
        # Built by fuzz/oss_fuzz_build.sh, which finds packages by this tag.
        tags = tags + ["oss_fuzz_package", "manual"],
        visibility = visibility,
    )
