#!/usr/bin/env bash
# Sets up, builds and runs the main job on the built-in default: `adarl compare
# configs/compare-quick.yaml`, Reinforce-Ada-Seq (balance) beside GRPO with 4 samples per
# prompt on the same fair pool, 5 paired seeds of 100 steps (the first 5 seeds of two arms
# of configs/equal-compute-general.yaml; about four minutes on 2 cores once the SFT warm
# start and the prompt selection are cached, about six more the first time). It ends
# with one sentence on what happened and the path of
# report.html. Arguments go to `adarl compare`, e.g. `scripts/run.sh 'compare.seeds=[1,2]'`;
# `adarl run configs/quickstart.yaml` trains one run (docs/guides/running.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh adarl_cli
./build/adarl compare configs/compare-quick.yaml "$@"
