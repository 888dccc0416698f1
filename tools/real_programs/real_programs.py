#!/usr/bin/env python3
# Copyright 2026 The Tessera Authors.
"""Real programs, not written here, on a preloaded malloc, against glibc.

Runs each program under glibc (no LD_PRELOAD), under mimalloc (Debian's
libmimalloc) and under the library under test (--library, LD_PRELOAD), and
requires the library's results to equal glibc's:

  * python: Python's own regression tests (Debian libpython3.11-testsuite),
    `python3 -m test <modules>`: every module passes, and the summary
    (modules OK / failed / skipped) is glibc's.
  * sqlite: `sqlite3 :memory:` running workload.sql (build a 200k-row table,
    index, group, sort, window, update, delete): output byte-identical.
  * g++: `g++ -O2 -c` of googletest's gtest-all.cc (Debian googletest):
    an identical object file.

Each run's wall time and peak RSS (ru_maxrss of the child from wait4, which
covers the descendants it waited for: cc1plus under g++, regrtest's
subprocesses under python) are printed in a table with ratios to glibc.
Before the programs run, a probe proves the preload is active: in a Python
child with the same environment, `malloc` must resolve into the library's
mapping (/proc/self/maps), and no run may print ld.so's "cannot be preloaded".

  python3 tools/real_programs/real_programs.py --library=/path/to/libX.so --name=X
  python3 tools/real_programs/real_programs.py --markdown   # README table

Exit status: 0 when every result matches glibc's, 1 otherwise (the table is
printed either way), 2 for bad arguments or a missing program.
"""

import argparse
import ctypes  # noqa: F401  (used by the probe through -c)
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

MIMALLOC = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"
PYTHON = "/usr/bin/python3"
SQLITE = "/usr/bin/sqlite3"
GXX = "/usr/bin/g++"
GTEST_ROOT = "/usr/src/googletest/googletest"
ALL_PYTHON_TESTS = ("test_long test_dict test_set test_list test_unicode "
                    "test_json test_re test_threading")
PROGRAMS = ("python", "sqlite", "g++")
HERE = os.path.dirname(os.path.abspath(__file__))

# Runs in a child with the allocator's environment: prints the file that
# `malloc` resolves into, found from /proc/self/maps. Debian's python3 is not
# position-independent, so dlsym finds the executable's canonical PLT entry
# for malloc (`jmp *GOT(%rip)`, possibly after endbr64/bnd): follow the GOT
# slot, which ld.so bound to the malloc that won the interposition.
PROBE = r"""
import ctypes
address = ctypes.cast(ctypes.CDLL(None).malloc, ctypes.c_void_p).value
code = ctypes.string_at(address, 16)
jump = code.find(b"\xff\x25")
if 0 <= jump <= 5:
    disp = int.from_bytes(code[jump + 2:jump + 6], "little", signed=True)
    slot = address + jump + 6 + disp
    address = ctypes.c_void_p.from_address(slot).value
for line in open("/proc/self/maps"):
    fields = line.split()
    lo, hi = (int(v, 16) for v in fields[0].split("-"))
    if lo <= address < hi:
        print(fields[5] if len(fields) > 5 else "?")
        break
"""


def environment(preload):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if preload:
        env["LD_PRELOAD"] = preload
    return env


def run(argv, preload, cwd, stdin_path=None):
    """Runs argv; returns (returncode, stdout bytes, stderr text, wall s, peak RSS KiB)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    out = tempfile.TemporaryFile(dir=cwd)
    err = tempfile.TemporaryFile(dir=cwd)
    start = time.monotonic()
    child = subprocess.Popen(argv, stdin=stdin, stdout=out, stderr=err,
                             cwd=cwd, env=environment(preload))
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if stdin_path:
        stdin.close()
    out.seek(0)
    err.seek(0)
    return (child.returncode, out.read(), err.read().decode(errors="replace"),
            wall, usage.ru_maxrss)


def prove(name, preload, cwd):
    """A one-line proof that `preload` (None: glibc) is the malloc, or raises."""
    code, out, err, _, _ = run([PYTHON, "-c", PROBE], preload, cwd)
    where = out.decode().strip()
    if code != 0 or "cannot be preloaded" in err:
        raise RuntimeError(f"{name}: the probe failed: {err.strip()}")
    if preload:
        if os.path.realpath(where) != os.path.realpath(preload):
            raise RuntimeError(
                f"{name}: malloc resolves into {where}, not {preload}")
    elif "libc.so" not in where:
        raise RuntimeError(f"glibc: malloc resolves into {where}, not libc")
    return f"malloc in {where}"


def python_summary(stdout):
    """regrtest's final summary (which modules passed, failed, were skipped),
    without its timings."""
    lines = stdout.decode(errors="replace").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("== Tests result:"):
            return [s.strip() for s in lines[i:]
                    if s.strip() and not s.startswith("Total duration")]
    return ["(no summary)"] + lines[-5:]


def run_program(program, preload, work, args):
    """Runs one program; returns (result key to compare, short verdict, wall, rss, error)."""
    if program == "python":
        modules = args.python_tests.split()
        code, out, err, wall, rss = run(
            [PYTHON, "-m", "test", "--timeout=600"] + modules, preload, work)
        summary = python_summary(out)
        ok = code == 0
        verdict = (f"{len(modules)} modules OK" if ok else
                   f"FAILED (exit {code}): " + "; ".join(summary[-3:]))
        return (code, tuple(summary)), verdict, wall, rss, err
    if program == "sqlite":
        code, out, err, wall, rss = run(
            [SQLITE, ":memory:"], preload, work,
            stdin_path=os.path.join(HERE, "workload.sql"))
        digest = hashlib.sha256(out).hexdigest()[:12]
        verdict = (f"{len(out.splitlines())} lines, sha256 {digest}"
                   if code == 0 else f"FAILED (exit {code})")
        return (code, out), verdict, wall, rss, err
    if program == "g++":
        obj = os.path.join(work, "gtest-all.o")
        if os.path.exists(obj):
            os.remove(obj)
        code, out, err, wall, rss = run(
            [GXX, "-O2", "-c", "-I" + GTEST_ROOT, "-I" + GTEST_ROOT + "/include",
             GTEST_ROOT + "/src/gtest-all.cc", "-o", obj], preload, work)
        data = open(obj, "rb").read() if code == 0 and os.path.exists(obj) else b""
        digest = hashlib.sha256(data).hexdigest()[:12]
        verdict = (f"{len(data)} B object, sha256 {digest}" if code == 0
                   else f"FAILED (exit {code})")
        return (code, data), verdict, wall, rss, err
    raise ValueError(program)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--library", default=MIMALLOC,
                        help="LD_PRELOAD library under test (default: mimalloc's)")
    parser.add_argument("--name", default="",
                        help="its name in the table (default: the file name)")
    parser.add_argument("--mimalloc", default=MIMALLOC,
                        help="the mimalloc reference; empty to leave it out")
    parser.add_argument("--programs", default=",".join(PROGRAMS),
                        help="comma-separated subset of " + ",".join(PROGRAMS))
    parser.add_argument("--python_tests", default=ALL_PYTHON_TESTS,
                        help="space-separated regression test modules")
    parser.add_argument("--workdir", default="",
                        help="scratch directory (default: a fresh temporary one)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the table as Markdown")
    args = parser.parse_args()

    programs = [p for p in args.programs.split(",") if p]
    for p in programs:
        if p not in PROGRAMS:
            print(f"real_programs: unknown program '{p}' (known: "
                  f"{', '.join(PROGRAMS)})", file=sys.stderr)
            return 2
    needs = {"python": [PYTHON, "/usr/lib/python3.11/test/test_long.py"],
             "sqlite": [SQLITE], "g++": [GXX, GTEST_ROOT + "/src/gtest-all.cc"]}
    packages = {"python": "libpython3.11-testsuite", "sqlite": "sqlite3",
                "g++": "g++ googletest"}
    for p in programs:
        for path in needs[p]:
            if not os.path.exists(path):
                print(f"real_programs: {path} missing: apt-get install "
                      f"{packages[p]}", file=sys.stderr)
                return 2
    if not os.path.exists(args.library):
        print(f"real_programs: --library '{args.library}' does not exist",
              file=sys.stderr)
        return 2
    library = os.path.abspath(args.library)
    name = args.name or os.path.basename(library)

    # glibc first (the reference), then mimalloc, then the library under
    # test; one row when the library is mimalloc's own file.
    subjects = [("glibc", None)]
    if args.mimalloc:
        subjects.append(("mimalloc", os.path.abspath(args.mimalloc)))
    if args.mimalloc and os.path.realpath(library) == os.path.realpath(args.mimalloc):
        subjects[-1] = (f"mimalloc (= {name})", subjects[-1][1])
    else:
        subjects.append((name, library))

    work = args.workdir or tempfile.mkdtemp(prefix="real_programs_")
    os.makedirs(work, exist_ok=True)
    failures = []
    proofs = {}
    try:
        for subject, preload in subjects:
            try:
                proofs[subject] = prove(subject, preload, work)
            except RuntimeError as e:
                print(f"real_programs: refusing to report: {e}", file=sys.stderr)
                return 1
        rows = []
        reference = {}
        for program in programs:
            for subject, preload in subjects:
                print(f"real_programs: {program} under {subject} ...",
                      file=sys.stderr, flush=True)
                sub = os.path.join(work, subject.split()[0])
                os.makedirs(sub, exist_ok=True)
                key, verdict, wall, rss, err = run_program(program, preload, sub, args)
                if "cannot be preloaded" in err:
                    failures.append(f"{program} under {subject}: ld.so did not "
                                    f"preload {preload}")
                if preload is None:
                    reference[program] = (key, wall, rss)
                    if key[0] != 0:
                        failures.append(f"{program} fails under glibc itself: "
                                        f"{verdict}\n{err[-2000:]}")
                elif key != reference[program][0]:
                    failures.append(f"{program} under {subject}: result differs "
                                    f"from glibc's: {verdict}\n{err[-2000:]}")
                    verdict = "DIFFERS from glibc: " + verdict
                else:
                    verdict = "same as glibc: " + verdict
                _, ref_wall, ref_rss = reference[program]
                rows.append((program, subject, wall, wall / ref_wall,
                             rss / 1024, rss / ref_rss, verdict))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    title = ("Real programs on each malloc (wall time and peak RSS of the "
             "child, ratio to glibc in the same run)")
    if args.markdown:
        print(title + "\n")
        print("| program | malloc | wall | ratio | peak RSS | ratio | result |")
        print("|---|---|---|---|---|---|---|")
        for program, subject, wall, wr, rss, rr, verdict in rows:
            print(f"| {program} | {subject} | {wall:.2f} s | {wr:.2f}x | "
                  f"{rss:.1f} MB | {rr:.2f}x | {verdict} |")
    else:
        print(title + "\n")
        print(f"{'program':<8} {'malloc':<28} {'wall':>9} {'ratio':>7} "
              f"{'peak RSS':>10} {'ratio':>7}  result")
        for program, subject, wall, wr, rss, rr, verdict in rows:
            print(f"{program:<8} {subject:<28} {wall:>7.2f} s {wr:>6.2f}x "
                  f"{rss:>7.1f} MB {rr:>6.2f}x  {verdict}")
    print()
    if "python" in programs:
        print(f"python modules: {args.python_tests}")
    for subject, _ in subjects:
        print(f"{subject}: {proofs[subject]}")
    if failures:
        print("\nFAILED:", file=sys.stderr)
        for f in failures:
            print("  " + f, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
