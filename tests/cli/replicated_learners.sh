#!/bin/sh
# Replicated learners (issue 14), real processes on loopback, a tiny transformer:
#  1. a run with learner.replicas=2 and one `adarl worker learn --rank 1` finishes, and
#     the worker ends with the run's last version;
#  2. a worker with another learner config is refused before training, naming the key;
#  3. rank 1 SIGKILLed mid-run: the run ends with an error naming rank 1 and writes a
#     checkpoint of the last completed step; --resume with learner.replicas=1 finishes.
#   replicated_learners.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; for f in *.log; do echo "== $f"; tail -8 "$f"; done; exit 1; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
lines() { [ -s "$1" ] && wc -l < "$1" || echo 0; }
qs="$src/configs/quickstart.yaml"
set -- progress=false model.d_model=32 model.n_layers=1 model.n_heads=2 model.d_ff=64 \
  sft.steps=40 sft.count=400 tasks.train=64 tasks.held_out=16 tracker.prompts_per_step=4 \
  eval.every=0 actors.generator_capacity=16 learner.collective_timeout=20 \
  learner.join_timeout=120 stall_seconds=120

echo "== 1. two ranks finish"
p=$(port)
"$adarl" run "$qs" "$@" tracker.steps=10 out=k2 learner.replicas=2 \
  "learner.store=127.0.0.1:$p" > k2.log 2>&1 &
run=$!; pids="$pids $run"
"$adarl" worker learn "$qs" "$@" tracker.steps=10 learner.replicas=2 --rank 1 \
  --store "127.0.0.1:$p" > w1.log 2>&1 &
w=$!; pids="$pids $w"
wait $run || fail "the K=2 run exited with status $?"
wait $w || fail "the worker exited with status $?"
[ "$(lines k2/metrics.jsonl)" -eq 10 ] || fail "k2: $(lines k2/metrics.jsonl) step lines, not 10"
grep -q "rank 1 done: rank 0 ended the run at version 10" w1.log || fail "worker's closing line"
python3 - k2/metrics.jsonl <<'PY' || fail "k2: no all-reduce figures in metrics.jsonl"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert all(r["reduced_bytes"] > 0 and r["time_reduce"] >= 0 for r in rows), rows[0]
print("reduced per step:", rows[-1]["reduced_bytes"], "bytes")
PY
echo "two ranks: 10 steps, worker done at version 10"

echo "== 2. a rank with another config is refused"
p=$(port)
"$adarl" run "$qs" "$@" tracker.steps=10 out=refused learner.replicas=2 \
  "learner.store=127.0.0.1:$p" > refused.log 2>&1 &
run=$!; pids="$pids $run"
"$adarl" worker learn "$qs" "$@" tracker.steps=10 learner.replicas=2 learner.lr=0.002 \
  --rank 1 --store "127.0.0.1:$p" > w-refused.log 2>&1
status=$?
wait $run && fail "the run with a mismatched rank succeeded"
[ $status -eq 1 ] || fail "the refused worker exited with $status"
grep -q "learner rank 1 runs another learner config: learner.lr is \"0.002" refused.log ||
  fail "the run's refusal"
grep -q "refused by rank 0: learner rank 1 runs another learner config" w-refused.log ||
  fail "the worker's refusal"
[ "$(lines refused/metrics.jsonl)" -eq 0 ] || fail "the refused run trained"
echo "refused: learner.lr named by both"

echo "== 3. rank 1 killed, resumed with one learner"
p=$(port)
"$adarl" run "$qs" "$@" tracker.steps=40 out=kill learner.replicas=2 \
  "learner.store=127.0.0.1:$p" > kill.log 2>&1 &
run=$!; pids="$pids $run"
"$adarl" worker learn "$qs" "$@" tracker.steps=40 learner.replicas=2 --rank 1 \
  --store "127.0.0.1:$p" > w-kill.log 2>&1 &
w=$!; pids="$pids $w"
i=0
while [ "$(lines kill/metrics.jsonl)" -lt 4 ]; do
  i=$((i + 1)); [ $i -lt 6000 ] || fail "no progress"; sleep 0.02
done
kill -9 $w
at=$(lines kill/metrics.jsonl)
wait $run && fail "the run went on without rank 1"
grep -q "learner rank 1.*(died or hung)" kill.log || fail "no error naming rank 1"
grep -q "checkpoint .*written" kill.log || fail "no checkpoint after the failure"
saved=$(cat kill/checkpoints/latest)
steps=$(lines kill/metrics.jsonl)
echo "killed rank 1 at step line $at; the run ended at $steps steps with $saved"
[ "$saved" = "$(printf 'step-%06d' "$steps")" ] || fail "checkpoint $saved is not of step $steps"
"$adarl" run "$qs" "$@" tracker.steps=40 learner.replicas=1 --resume kill > resume.log 2>&1 ||
  fail "resume with K=1 exited with status $?"
[ "$(lines kill/metrics.jsonl)" -eq 40 ] || fail "resumed run: $(lines kill/metrics.jsonl) step lines, not 40"
python3 - kill/metrics.jsonl <<'PY' || fail "steps not 0..39 once each"
import json, sys
steps = [json.loads(l)["step"] for l in open(sys.argv[1])]
assert steps == list(range(40)), steps
PY
echo "resumed with K=1: 40 steps, each once"
echo "replicated learners: all scenarios hold"
