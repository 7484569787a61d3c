#!/bin/sh
# adarl run on a Hugging Face checkpoint, end to end (configs/hf-tiny.yaml):
#  1. a tiny random Qwen2-shaped checkpoint with the real Qwen3 tokenizer (the npm
#     cache's; a small byte-level tokenizer.json when it is missing), GRPO on math prompts
#     in the boxed format through the ChatML template: `adarl model inspect` accepts it,
#     the run trains 3 steps, its metrics count 16 samples per step, and the checkpoint's
#     hf/ is an HF directory (config.json as given, model.safetensors in the input's
#     dtype, tokenizer files) that `adarl model inspect` accepts and, where
#     /usr/bin/python3 has torch, the Python reference loads with adarl's logits;
#     1b. the same for a tiny Qwen3 checkpoint (q/k norms, head_dim 32 over hidden 64);
#  2. a task a random policy sometimes solves (a regex verifier on the completion's first
#     letter; the small tokenizer), deterministic: the weights change, two runs and a run
#     whose generation is all done by 2 remote workers (`adarl worker generate`, engine
#     spec kind hf) write identical metrics and checkpoint bytes;
#     2b. the same run with learner.replicas=2 and one `adarl worker learn --rank 1`
#     finishes, with the gradients all-reduced every step;
#  3. a bad model.path, model.chat_template or a shape key is refused before anything
#     starts.
#   hf_run.sh ADARL MAKE_TINY_HF HF_LOGITS SOURCE_DIR WORK_DIR
set -u
adarl=$1 make=$2 logits=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; for f in *.log; do echo "== $f"; tail -5 "$f"; done; exit 1; }
config="$src/configs/hf-tiny.yaml"

echo "== 1. train a tiny checkpoint and write it back"
tokenizer=$("$make" base --f32 --scale 0.05) || fail "make_tiny_hf"
echo "tokenizer: $tokenizer"
"$adarl" model inspect base > inspect.log 2>&1 || fail "inspect of the base"
grep -q "^supported: yes" inspect.log || fail "the base is not supported"
"$adarl" run "$config" model.path=base out=run progress=false > run.log 2>&1 || fail "run"
grep -q "run: finished at version 3" run.log || fail "no finishing line"
python3 - run/metrics.jsonl <<'PY' || fail "metrics"
import json, math, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert [l["step"] for l in lines] == [0, 1, 2], [l["step"] for l in lines]
for l in lines:
    assert l["samples"] == 16 and l["prompts"] == 4, l
    assert l["tokens"] > 0 and math.isfinite(l["loss"]) and l["policy_version"] == l["step"] + 1, l
print("metrics: 3 steps x 16 samples, tokens %s, real_reward %s, loss %s" % (
    [l["tokens"] for l in lines], [l["real_reward"] for l in lines],
    ["%.4g" % l["loss"] for l in lines]))
PY
ck=run/checkpoints/step-000003
for f in hf/config.json hf/model.safetensors hf/tokenizer.json hf/tokenizer_config.json \
    hf/generation_config.json optimizer.safetensors meta.json; do
  [ -f "$ck/$f" ] || fail "$ck/$f missing"
done
cmp -s base/config.json "$ck/hf/config.json" || fail "config.json changed"
cmp -s base/tokenizer.json "$ck/hf/tokenizer.json" || fail "tokenizer.json changed"
[ ! -e "$ck/master_weights.safetensors" ] || fail "a float32 input needs no master copy"
python3 -c "import json,struct,sys; f=open(sys.argv[1],'rb'); n=struct.unpack('<Q',f.read(8))[0]; h=json.loads(f.read(n)); assert {v['dtype'] for k,v in h.items() if k!='__metadata__'}=={'F32'}" \
  "$ck/hf/model.safetensors" || fail "the checkpoint is not in the input's dtype"
"$adarl" model inspect "$ck/hf" > inspect-ck.log 2>&1 || fail "inspect of the checkpoint"
grep -q "^supported: yes" inspect-ck.log || fail "the checkpoint is not supported"
reference() {  # reference CHECKPOINT_HF_DIR NAME: adarl's logits against the Python reference
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "$2: reference skipped (/usr/bin/python3 has no torch)"
    return 0
  fi
  printf 'Compute: 2+3.\n' | "$adarl" model tokenize "$1" --chat \
    | python3 -c 'import json, sys; print(json.dumps([json.loads(l) for l in sys.stdin]))' > "$2.tokens.json"
  "$logits" "$1" "$2.tokens.json" "$2" > "$2.logits.log" 2>&1 || fail "hf_logits $1"
  /usr/bin/python3 "$src/tests/models/hf_reference.py" "$1" "$2.tokens.json" "$2" > "$2.reference.log" 2>&1 \
    || { cat "$2.reference.log"; fail "the reference differs on $1"; }
  grep "max |adarl" "$2.reference.log"
  echo "$2: the Python reference agrees"
}
reference "$ck/hf" trained-math

echo "== 1b. the same for Qwen3 (q/k norms, a head_dim of its own)"
"$make" base3 --qwen3 --f32 --scale 0.05 --head-dim 32 > /dev/null || fail "make_tiny_hf qwen3"
"$adarl" model inspect base3 > inspect3.log 2>&1 || fail "inspect of the Qwen3 base"
grep -q "^supported: yes" inspect3.log || fail "the Qwen3 base is not supported"
"$adarl" run "$config" model.path=base3 out=run3 progress=false > run3.log 2>&1 || fail "Qwen3 run"
grep -q "run: finished at version 3" run3.log || fail "Qwen3: no finishing line"
ck3=run3/checkpoints/step-000003
cmp -s base3/config.json "$ck3/hf/config.json" || fail "Qwen3: config.json changed"
python3 -c "import json,struct,sys; f=open(sys.argv[1],'rb'); n=struct.unpack('<Q',f.read(8))[0]; h=json.loads(f.read(n)); assert h['model.layers.1.self_attn.k_norm.weight']['shape']==[32], h.keys()" \
  "$ck3/hf/model.safetensors" || fail "Qwen3: the checkpoint lacks its q/k norms"
"$adarl" model inspect "$ck3/hf" > inspect3-ck.log 2>&1 || fail "inspect of the Qwen3 checkpoint"
grep -q "^supported: yes" inspect3-ck.log || fail "the Qwen3 checkpoint is not supported"
reference "$ck3/hf" trained-qwen3

echo "== 2. a task with a learning signal: weights change; deterministic, local and remote"
"$make" small --f32 --scale 0.05 --small-tokenizer > /dev/null || fail "make_tiny_hf small"
python3 - <<'PY'
import json
with open("letters.jsonl", "w") as f:
    for i in range(40):
        f.write(json.dumps({"id": f"l{i}", "prompt": f"Write a word ({i}).", "answer": "[a-z][\\s\\S]*",
                            "task": "general", "verifier": "regex"}) + "\n")
PY
set -- model.path=small tasks.dataset=letters.jsonl tasks.prompt_format=plain \
  deterministic=true progress=false learner.checkpoint_every=2 learner.lr=1e-3
"$adarl" run "$config" "$@" out=det-a > det-a.log 2>&1 || fail "deterministic run a"
python3 - det-a/metrics.jsonl <<'PY' || fail "no learning signal"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rewards = [l["real_reward"] for l in lines]
assert any(0 < r < 1 for r in rewards) and any(l["zero_gradient_fraction"] < 1 for l in lines), lines
print("letters: real_reward %s, zero_gradient_fraction %s, loss %s" % (
    rewards, [l["zero_gradient_fraction"] for l in lines], ["%.4g" % l["loss"] for l in lines]))
PY
cmp -s small/model.safetensors det-a/checkpoints/step-000003/hf/model.safetensors \
  && fail "the weights did not change"
reference det-a/checkpoints/step-000003/hf trained-letters
"$adarl" run "$config" "$@" out=det-b > det-b.log 2>&1 || fail "deterministic run b"
files="hf/model.safetensors optimizer.safetensors tracker.json carried.cbor meta.json"
python3 "$src/tests/cli/compare_runs.py" det-a det-b $files || fail "deterministic runs differ"
p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$adarl" run "$config" "$@" out=det-remote actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$p" stall_seconds=120 > det-remote.log 2>&1 &
run=$!
pids="$pids $run"
for w in w1 w2; do
  "$adarl" worker generate --connect "tcp://127.0.0.1:$p" --name "$w" > "$w.log" 2>&1 &
  pids="$pids $!"
done
wait $run || fail "the remote run exited with status $?"
grep -q "remote generators: [12] workers joined, 0 lost" det-remote.log || fail "no workers joined"
python3 "$src/tests/cli/compare_runs.py" det-a det-remote $files || fail "remote generation differs"

echo "== 2b. the same run with a replicated learner: rank 1 is an adarl worker learn"
p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$adarl" run "$config" "$@" out=det-k2 learner.replicas=2 "learner.store=127.0.0.1:$p" \
  learner.join_timeout=120 stall_seconds=120 > det-k2.log 2>&1 &
run=$!
pids="$pids $run"
"$adarl" worker learn "$config" "$@" learner.replicas=2 --rank 1 --store "127.0.0.1:$p" \
  > learn1.log 2>&1 &
w=$!
pids="$pids $w"
wait $run || fail "the replicated run exited with status $?"
wait $w || fail "the learner rank exited with status $?"
grep -q "rank 1 done: rank 0 ended the run at version 3" learn1.log || fail "the rank's closing line"
python3 - det-a/metrics.jsonl det-k2/metrics.jsonl <<'PY' || fail "the replicated run differs"
import json, sys
one, two = ([json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:3])
assert [l["step"] for l in two] == [0, 1, 2], two
assert all(l["reduced_bytes"] > 0 for l in two), two[0]
# Step 0 samples the same base weights; the learner's sums differ only in order.
assert one[0]["real_reward"] == two[0]["real_reward"], (one[0], two[0])
assert one[0]["tokens"] == two[0]["tokens"], (one[0], two[0])
print("replicated: loss %s against %s, reduced %s bytes a step" % (
    ["%.4g" % l["loss"] for l in two], ["%.4g" % l["loss"] for l in one], two[-1]["reduced_bytes"]))
PY

echo "== 3. bad configs are refused before anything starts"
"$adarl" run "$config" model.path=nowhere out=bad > bad-path.log 2>&1
[ $? -eq 2 ] || fail "a missing model.path did not exit 2"
grep -q "model.path: expected the directory of a Hugging Face checkpoint" bad-path.log || fail "model.path message"
"$adarl" run "$config" model.path=base model.chat_template=jinja out=bad > bad-template.log 2>&1
[ $? -eq 2 ] || fail "a bad chat_template did not exit 2"
grep -q "model.chat_template: expected auto, none, chatml or llama3" bad-template.log || fail "template message"
"$adarl" run "$config" model.path=base model.d_model=64 out=bad > bad-shape.log 2>&1
grep -q "model.d_model: not used with kind hf" bad-shape.log || fail "shape keys with kind hf"
[ ! -e bad ] || fail "a refused run wrote its directory"
echo "hf run: all checks hold"
