#!/bin/bash -eu
# ClusterFuzzLite entry point: the OSS-Fuzz build.sh contract is implemented
# by fuzz/oss_fuzz_build.sh (see there for what it reads and writes).
# tools/bazel would try to apt-get its packages: the Dockerfile did that.
export TESSERA_SKIP_INSTALL_CHECK=1
exec "$SRC/tessera/fuzz/oss_fuzz_build.sh"
