#!/usr/bin/env bash
# Sets up, builds and runs the main job on the built-in default: `adarl run
# configs/quickstart.yaml` (SFT warm start, then Reinforce-Ada-Seq with the actor
# pipeline; about 5 minutes on 2 cores). Arguments go to `adarl run`, e.g.
# `scripts/run.sh tracker.steps=300` or `scripts/run.sh --resume runs/quickstart/latest`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh adarl_cli
./build/adarl run configs/quickstart.yaml "$@"
