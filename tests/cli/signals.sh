#!/bin/sh
# Signals at every phase (docs/guides/reliability.md "Reliability"), real processes, a tiny transformer:
#  1. `adarl run` started with SIGINT ignored (as a script's `cmd &` starts it) stops on
#     SIGINT during the SFT warm start: exit status 130 within seconds, a line saying
#     where it stopped and that the warm start starts over, a line to continue with;
#     `adarl compare` and `adarl tasks select` do the same during their warm start;
#  2. learner.replicas=2 without the second rank: the run says which rank it waits for,
#     at which store, and the exact command that starts it; that command, run as
#     printed, lets the run finish; a second such run stops at once on SIGTERM (130);
#  3. the metrics endpoint with a slow-loris client (a header byte every 0.5 s for 60 s)
#     connected: a scrape is answered at once, and SIGINT ends the run within seconds.
#   signals.sh ADARL SOURCE_DIR WORK_DIR warm_start|replicas|metrics
set -u
adarl=$1 src=$2 work=$3 scenario=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
ADARL_CACHE=$work/cache
export ADARL_CACHE
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in *.txt; do echo "== $f"; tail -6 "$f"; done; exit 1; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round($(now) - $1, 2))"; }
await() {  # await PATTERN FILE SECONDS PID: until a line of FILE matches, while PID runs
  i=0
  until grep -q -e "$1" "$2" 2>/dev/null; do
    kill -0 "$4" 2>/dev/null || fail "it ended before '$1' appeared in $2"
    i=$((i + 1)); [ $i -le $(($3 * 20)) ] || fail "no '$1' in $2 within $3 s"; sleep 0.05
  done
}
ended() {  # ended PID SECONDS: waits for PID to end; its exit status in $got
  i=0
  while kill -0 "$1" 2>/dev/null; do
    i=$((i + 1))
    [ $i -le $(($2 * 20)) ] || { kill -9 "$1"; fail "still running $2 s after the signal"; }
    sleep 0.05
  done
  wait "$1"
  got=$?
}
qs="$src/configs/quickstart.yaml"
set -- progress=false model.d_model=16 model.n_layers=1 model.n_heads=2 model.d_ff=32 \
  sft.count=64 tasks.train=16 tasks.held_out=4 tracker.steps=2 tracker.prompts_per_step=4 \
  actors.generator_capacity=16 eval.every=0

warm_stop() {  # warm_stop NAME COMMAND...: starts it, SIGINT after 50 SFT steps
  name=$1; shift
  bash -c 'trap "" INT; exec "$@"' sh "$@" > "$name.txt" 2>&1 &
  pid=$!; pids="$pids $pid"
  await "^sft step 50/100000 " "$name.txt" 120 $pid
  t0=$(now)
  kill -INT $pid
  ended $pid 20
  echo "$name: exit status $got $(since "$t0") s after SIGINT"
  [ "$got" = 130 ] || fail "$name: exit status $got, expected 130"
}

warm_start() {
echo "== 1. SIGINT during the warm start, SIGINT inherited as ignored"
warm_stop run "$adarl" run "$qs" "$@" sft.steps=100000 out=warm
grep -q "^run: stopped before training: SFT warm start stopped at step [0-9]* of 100000 (no checkpoint written); it is cached in $ADARL_CACHE/sft/[0-9a-f]* only once complete, so it starts over next time$" run.txt ||
  fail "no line saying where the warm start stopped"
grep -q "^continue with: adarl run $qs .* sft.steps=100000 out=warm$" run.txt ||
  fail "no line to continue with"
ls "$ADARL_CACHE"/sft/*/meta.json 2>/dev/null && fail "a stopped warm start was cached"
warm_stop compare "$adarl" compare "$src/configs/compare.yaml" "$@" sft.steps=100000 \
  compare.out=cmp compare.equal_steps=0 compare.select=null
grep -q "^compare: stopped before any run: SFT warm start stopped at step .*. Continue with: adarl compare $src/configs/compare.yaml .* compare.select=null$" compare.txt ||
  fail "compare: no line saying where it stopped and how to continue"
warm_stop select "$adarl" tasks select "$qs" "$@" sft.steps=100000 --out sel.jsonl
grep -q "^adarl tasks select: stopped: SFT warm start stopped at step" select.txt ||
  fail "select: no line saying where it stopped"
}

replicas() {
echo "== 2. learner.replicas=2: what the run waits for, and SIGTERM while it waits"
p=$(port)
set -- "$@" sft.steps=5 learner.replicas=2 "learner.store=127.0.0.1:$p" learner.join_timeout=120
"$adarl" run "$qs" "$@" out=k2 > k2.txt 2>&1 &
run=$!; pids="$pids $run"
await "waits for learner rank 1 to join the store at 127.0.0.1:$p (0 s of 120 s, learner.join_timeout)" k2.txt 120 $run
line=$(grep "^  adarl worker learn " k2.txt | head -1)
[ -n "$line" ] || fail "no command to start rank 1"
echo "printed:$line"
case "$line" in *" --rank 1") ;; *) fail "the command does not end with --rank 1" ;; esac
# The command as printed (its program is this build's adarl).
sh -c "\"$adarl\" ${line#  adarl }" > w1.txt 2>&1 &
pids="$pids $!"
ended $run 120
[ "$got" = 0 ] || fail "the run with its second rank started as printed: exit status $got"
grep -q "^run: finished at version 2" k2.txt || fail "the K=2 run did not finish"
p=$(port)
set -- "$@" "learner.store=127.0.0.1:$p"
"$adarl" run "$qs" "$@" out=k2-stop > k2-stop.txt 2>&1 &
run=$!; pids="$pids $run"
await "waits for learner rank 1 to join the store at 127.0.0.1:$p" k2-stop.txt 60 $run
t0=$(now)
kill -TERM $run
ended $run 10
echo "replicas: exit status $got $(since "$t0") s after SIGTERM (learner.join_timeout 120 s)"
[ "$got" = 130 ] || fail "exit status $got after SIGTERM while waiting for rank 1"
grep -q "^run: stopped before training: .*stopped while waiting for learner rank 1 to join the store at 127.0.0.1:$p" k2-stop.txt ||
  fail "no line saying what it was waiting for"
grep -q "^continue with: adarl run " k2-stop.txt || fail "no line to continue with"
}

metrics() {
echo "== 3. metrics endpoint with a slow client; SIGINT at exit"
sim="$src/configs/sim-smoke.yaml"
"$adarl" run "$sim" out=slow tracker.steps=100000 actors.sim_latency.step_seconds=0.002 \
  metrics.listen=127.0.0.1:0 > slow.txt 2>&1 &
run=$!; pids="$pids $run"
await "^run: metrics at http" slow.txt 30 $run
url=$(sed -n 's/^run: metrics at \(http:[^ ]*\)$/\1/p' slow.txt)
mport=${url##*:}; mport=${mport%%/*}
python3 - "$mport" > loris.txt 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
print("connected", flush=True)
for _ in range(120):  # one header byte every 0.5 s: 60 s
    time.sleep(0.5)
    try:
        s.sendall(b"X")
    except OSError:
        print("closed by the server", flush=True)
        break
PY
loris=$!; pids="$pids $loris"
await connected loris.txt 10 $loris
t0=$(now)
curl -sf --max-time 5 "$url" > page.txt || fail "no scrape while a slow client is connected"
echo "scrape with a slow client connected: $(since "$t0") s"
grep -q '^adarl_steps_planned{run="sim-smoke"} 100000' page.txt || fail "not the run's page"
t0=$(now)
kill -INT $run
ended $run 20
echo "metrics: exit status $got $(since "$t0") s after SIGINT (the slow client would take 60 s)"
[ "$got" = 130 ] || fail "exit status $got"
}

case $scenario in
  warm_start|replicas|metrics) $scenario "$@" ;;
  *) fail "unknown scenario $scenario" ;;
esac
echo "signals $scenario: all checks hold"
