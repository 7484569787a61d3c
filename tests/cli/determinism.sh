#!/bin/sh
# Deterministic mode, bit for bit, with the transformer: two runs of 40 steps write the
# same metrics (timings aside), evaluations and checkpoint bytes (model, optimizer,
# tracker state, carried steps); a third run killed with SIGKILL after a mid-run
# checkpoint and resumed, with the SFT warm start gone from the cache, writes them too.
#   determinism.sh ADARL SOURCE_DIR WORK_DIR
set -eu
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ADARL_CACHE="$work/cache"
config="$src/configs/quickstart.yaml"
set -- deterministic=true progress=false model.d_model=32 model.n_layers=1 model.n_heads=2 \
  model.d_ff=64 sft.steps=40 sft.count=400 tasks.train=64 tasks.held_out=16 \
  tracker.prompts_per_step=4 tracker.steps=40 learner.checkpoint_every=10 eval.every=10 \
  eval.samples=2 actors.generator_capacity=16 actors.generators=2
files="model.bin optimizer.safetensors tracker.json carried.cbor meta.json"
"$adarl" run "$config" "$@" out=a > a.log 2>&1 || { cat a.log; exit 1; }
"$adarl" run "$config" "$@" out=b > b.log 2>&1 || { cat b.log; exit 1; }
python3 "$src/tests/cli/compare_runs.py" a b $files
"$adarl" run "$config" "$@" out=c > c.log 2>&1 &
pid=$!
i=0
while [ ! -e c/checkpoints/step-000020/checkpoint.json ]; do
  i=$((i + 1))
  if [ $i -gt 6000 ] || ! kill -0 $pid 2>/dev/null; then echo "no checkpoint at step 20"; cat c.log; exit 1; fi
  sleep 0.01
done
kill -9 $pid
wait $pid 2>/dev/null || true
echo "killed after $(wc -l < c/metrics.jsonl) step lines"
# The checkpoint holds the weights: a resume whose SFT warm start is gone from the cache
# does not train it again (issue 38).
rm -rf "$ADARL_CACHE/sft"
"$adarl" run "$config" "$@" --resume c > resume.log 2>&1 || { cat resume.log; exit 1; }
grep -q "no SFT warm start needed" resume.log || { cat resume.log; echo "no word of the checkpoint's weights"; exit 1; }
if grep -q "^run: SFT warm start (" resume.log; then cat resume.log; echo "the resume trained the warm start again"; exit 1; fi
python3 "$src/tests/cli/compare_runs.py" a c $files
