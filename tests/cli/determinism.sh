#!/bin/sh
# Deterministic mode, bit for bit, with the transformer: two runs of 40 steps write the
# same metrics (timings aside), evaluations and checkpoint bytes (model, optimizer,
# tracker state, carried steps); a third run killed with SIGKILL after a mid-run
# checkpoint and resumed, with the SFT warm start gone from the cache, writes them too;
# so does a fourth, resumed from a checkpoint made to look as one written before the
# tracker kept its budget ledger.
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
# killed_and_resumed DIR [old]: a run killed with SIGKILL after its checkpoint at step 20,
# then resumed. With "old", the checkpoint is made one written before the tracker kept
# its budget ledger (tracker.json without "budget"): the resume rebuilds the totals from
# metrics.jsonl and the carried reports, and must reach the same bytes.
killed_and_resumed() {
  dir=$1; shift
  "$adarl" run "$config" "$@" out=$dir > $dir.log 2>&1 &
  pid=$!
  i=0
  while [ ! -e $dir/checkpoints/step-000020/checkpoint.json ]; do
    i=$((i + 1))
    if [ $i -gt 6000 ] || ! kill -0 $pid 2>/dev/null; then echo "no checkpoint at step 20"; cat $dir.log; exit 1; fi
    sleep 0.01
  done
  kill -9 $pid
  wait $pid 2>/dev/null || true
  echo "killed after $(wc -l < $dir/metrics.jsonl) step lines"
}
killed_and_resumed c "$@"
# The checkpoint holds the weights: a resume whose SFT warm start is gone from the cache
# does not train it again (issue 38).
rm -rf "$ADARL_CACHE/sft"
"$adarl" run "$config" "$@" --resume c > resume.log 2>&1 || { cat resume.log; exit 1; }
grep -q "no SFT warm start needed" resume.log || { cat resume.log; echo "no word of the checkpoint's weights"; exit 1; }
if grep -q "^run: SFT warm start (" resume.log; then cat resume.log; echo "the resume trained the warm start again"; exit 1; fi
python3 "$src/tests/cli/compare_runs.py" a c $files
killed_and_resumed d "$@"
# The manifest's hash of tracker.json is redone (Debian's python3-xxhash, scripts/setup.sh).
/usr/bin/python3 - d <<'PY' || { echo "FAIL: could not edit d's checkpoint"; exit 1; }
import json, os, sys
import xxhash
ckpt = os.path.join(sys.argv[1], "checkpoints")
ckpt = os.path.join(ckpt, open(os.path.join(ckpt, "latest")).read().strip())
path = os.path.join(ckpt, "tracker.json")
state = json.load(open(path))
assert "budget" in state, path + ": no budget to take out"
del state["budget"]
data = json.dumps(state).encode()
open(path, "wb").write(data)
manifest_path = os.path.join(ckpt, "checkpoint.json")
manifest = json.load(open(manifest_path))
manifest["files"]["tracker.json"] = {"bytes": len(data), "xxh3": xxhash.xxh3_128_hexdigest(data)}
open(manifest_path, "w").write(json.dumps(manifest, indent=1))
print(path + ": as written before the budget ledger")
PY
"$adarl" run "$config" "$@" --resume d > resume-old.log 2>&1 || { cat resume-old.log; exit 1; }
python3 "$src/tests/cli/compare_runs.py" a d $files
