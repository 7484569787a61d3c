#!/bin/sh
# Remote generator workers on loopback (issue 13), real processes:
#  1. a simulated-policy run with 0 local and 2 remote generators finishes, and with
#     deterministic: true gives the local run's metrics, evaluations and checkpoint;
#  2. the same with the transformer (a tiny one);
#  3. a worker is SIGKILLed at a random step, twice, and a new worker joins: the run
#     finishes with every sample counted once and the uninterrupted run's results;
#  4. a worker of another protocol version and a worker with a wrong CURVE key are
#     refused with a clear message, and the run goes on with the others.
#   remote_generators.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
fail() { echo "FAIL: $*"; for f in *.log; do echo "== $f"; tail -5 "$f"; done; exit 1; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
worker() {  # worker NAME ENDPOINT [extra args]: starts one in the background
  name=$1 endpoint=$2; shift 2
  "$adarl" worker generate --connect "$endpoint" --name "$name" "$@" > "$name.log" 2>&1 &
  pids="$pids $!"
  last=$!
}
wait_run() {  # wait_run PID LOG
  wait "$1" || fail "the run exited with status $? ($2)"
}
compare() { python3 "$src/tests/cli/compare_runs.py" "$@" || fail "results differ: $*"; }

sim="$src/configs/sim-smoke.yaml"
set -- tracker.steps=30 eval.every=10
echo "== 1. simulated policy, 0 local + 2 remote generators"
"$adarl" run "$sim" "$@" out=sim-local > sim-local.log 2>&1 || fail "local run"
p=$(port)
"$adarl" run "$sim" "$@" out=sim-remote actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$p" stall_seconds=60 > sim-remote.log 2>&1 &
run=$!
worker s1 "tcp://127.0.0.1:$p"
worker s2 "tcp://127.0.0.1:$p"
wait_run $run sim-remote.log
grep -q "remote generators: [12] workers joined, 0 lost" sim-remote.log || fail "no closing line"
compare sim-local sim-remote sim_policy.txt tracker.json carried.cbor

echo "== 2. transformer, 0 local + 2 remote generators"
qs="$src/configs/quickstart.yaml"
set -- deterministic=true progress=false model.d_model=32 model.n_layers=1 model.n_heads=2 \
  model.d_ff=64 sft.steps=40 sft.count=400 tasks.train=64 tasks.held_out=16 \
  tracker.prompts_per_step=4 tracker.steps=12 eval.every=6 eval.samples=2 \
  actors.generator_capacity=16
"$adarl" run "$qs" "$@" out=tf-local > tf-local.log 2>&1 || fail "local transformer run"
p=$(port)
"$adarl" run "$qs" "$@" out=tf-remote actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$p" stall_seconds=120 > tf-remote.log 2>&1 &
run=$!
worker t1 "tcp://127.0.0.1:$p"
worker t2 "tcp://127.0.0.1:$p"
wait_run $run tf-remote.log
compare tf-local tf-remote model.bin optimizer.safetensors tracker.json carried.cbor

echo "== 3. workers killed and joining"
set -- tracker.steps=120 actors.sim_latency.step_seconds=0.004 eval.every=30
"$adarl" run "$sim" "$@" out=kill-local > kill-local.log 2>&1 || fail "local run"
p=$(port)
"$adarl" run "$sim" "$@" out=kill-remote actors.generators=0 \
  "actors.remote_generators.bind=tcp://127.0.0.1:$p" stall_seconds=120 > kill-remote.log 2>&1 &
run=$!
worker k1 "tcp://127.0.0.1:$p"; k1=$last
worker k2 "tcp://127.0.0.1:$p"; k2=$last
seed=${KILL_SEED:-$(date +%s)}
echo "seed $seed"
steps() { [ -s kill-remote/metrics.jsonl ] && wc -l < kill-remote/metrics.jsonl || echo 0; }
# A worker is killed only once the run has said it joined (on a loaded machine a worker
# can start after the other one has carried the run past the step picked for the kill).
joined() { grep -q "worker $1 joined" kill-remote/adarl.log 2>/dev/null; }
at=0
for victim in $k1 $k2; do
  name=k1; [ "$victim" = "$k2" ] && name=k2
  at=$(awk -v s="$seed" -v v="$victim" -v a="$at" 'BEGIN { srand(s + v); print a + 10 + int(rand() * 40) }')
  i=0
  while [ "$(steps)" -lt "$at" ] || ! joined $name; do
    i=$((i + 1)); [ $i -lt 6000 ] || fail "no progress to step $at (or $name never joined)"; sleep 0.01
  done
  kill -9 "$victim"
  echo "killed worker $victim at step $(steps)"
  [ "$victim" = "$k1" ] && { worker k3 "tcp://127.0.0.1:$p"; echo "worker k3 joined"; }
done
wait_run $run kill-remote.log
grep -q "remote generators: 3 workers joined, 2 lost" kill-remote.log || fail "not 3 joined, 2 lost"
python3 - kill-remote 120 <<'PY' || fail "accounting"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl")]
n = int(sys.argv[2])
assert [l["step"] for l in lines] == list(range(n)), "steps"
total = 0
for l in lines:
    total += l["samples"]
    assert l["cumulative_samples"] == total, "cumulative"
    assert l["results"] >= l["samples"] + l["duplicates"], "results"
print(f"accounting: {n} steps, {total} samples, each counted once")
PY
compare kill-local kill-remote sim_policy.txt tracker.json carried.cbor

echo "== 4. refused workers"
p=$(port)
"$adarl" worker keygen --out run.keys > run.pub
"$adarl" run "$sim" tracker.steps=40 actors.sim_latency.step_seconds=0.004 out=curve \
  actors.generators=0 "actors.remote_generators.bind=tcp://127.0.0.1:$p" \
  actors.remote_generators.curve_keys=run.keys stall_seconds=60 > curve.log 2>&1 &
run=$!
worker good "tcp://127.0.0.1:$p" --server-key "$(cat run.pub)"
"$adarl" worker keygen --out other.keys > other.pub
"$adarl" worker generate --connect "tcp://127.0.0.1:$p" --name wrongkey \
  --server-key "$(cat other.pub)" --timeout 2 > wrongkey.log 2>&1 &
pids="$pids $!"
# Debian's python3 has python3-zmq and python3-msgpack (scripts/setup.sh).
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
$py - "$p" <<'PY' || fail "an old worker was not refused"
import sys, zmq, msgpack
ctx = zmq.Context()
s = ctx.socket(zmq.DEALER)
s.setsockopt(zmq.IDENTITY, b"old-worker")
s.curve_serverkey = open("run.pub").read().strip().encode()
s.curve_publickey, s.curve_secretkey = zmq.curve_keypair()
s.connect(f"tcp://127.0.0.1:{sys.argv[1]}")
s.send(msgpack.packb({"v": 1, "type": "hello", "name": "old-worker", "credit": 1}))
if not s.poll(20000):
    sys.exit("no answer")
m = msgpack.unpackb(s.recv())
assert m["type"] == "refused" and "protocol version 1" in m["reason"], m
print("old worker:", m["reason"])
PY
wait_run $run curve.log
# Joins are in the run's log file, not on the terminal.
grep -q "worker good joined" curve/adarl.log || fail "the good worker did not join"
grep -q "wrongkey joined" curve/adarl.log curve.log && fail "a worker with the wrong key joined"
echo "remote generators: all scenarios hold"
