#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds everything and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 600
