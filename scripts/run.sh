#!/usr/bin/env bash
# Sets up, builds and runs the main job on the built-in default: until the actor
# pipeline lands that is `adarl simulate` (strategies on a simulated policy).
# Arguments go to `adarl simulate`, e.g. `scripts/run.sh --seeds 5`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh adarl_cli
./build/adarl simulate "$@"
