"""Compiler options shared by every first-party Tessera target.

Warnings are on everywhere; `-Werror` is added by .bazelrc only for files of
this workspace (`--per_file_copt`), so an importer with a newer compiler is
never broken by a new warning in Tessera.
"""

TESSERA_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
]

TESSERA_TEST_COPTS = TESSERA_COPTS + [
    "-Wno-sign-compare",
]
