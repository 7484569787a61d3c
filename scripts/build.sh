#!/usr/bin/env bash
# Configures and builds adarl into build/ (out of tree). Extra arguments go to make,
# e.g. `scripts/build.sh adarl_cli` builds the executable alone. RelWithDebInfo with line
# tables only (-g1: backtraces and sanitizer reports keep their lines; a LibTorch
# translation unit compiles about 17% faster than with -g); configure a build of your own
# for full debug information (docs/development.md "Build time").
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
rm -f build-configure.log
cmake --build build -j "$jobs" ${1:+--target "$@"}
