#!/usr/bin/env bash
# Configures and builds adarl into build/ (out of tree). Extra arguments go to make,
# e.g. `scripts/build.sh adarl_cli` builds the executable alone.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >build-configure.log 2>&1 || {
  cat build-configure.log; exit 1; }
rm -f build-configure.log
cmake --build build -j "$jobs" ${1:+--target "$@"}
