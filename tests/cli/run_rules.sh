#!/bin/sh
# The rules of `adarl run` that protect a user's results (docs/guides/reliability.md "Reliability"):
# a fresh run never writes over a run's metrics; --resume refuses a config that changes
# what the checkpoint's state means unless --resume-force; Ctrl-C ends with exit status
# 130 and a "continue with" line that repeats the overrides given; bad command lines
# exit 2; cuda:N on a CPU-only LibTorch is refused before anything starts.
#   run_rules.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
sim="$src/configs/sim-smoke.yaml"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect STATUS PATTERN FILE
  [ "$got" = "$1" ] || { cat out.txt err.txt; fail "exit status $got, expected $1"; }
  grep -q -e "$2" "$3" || { cat out.txt err.txt; fail "no '$2' in $3"; }
}
run() { "$adarl" "$@" > out.txt 2> err.txt; got=$?; }

run run "$sim" out=D tracker.steps=4
expect 0 "run: finished at version 4" out.txt
run run "$sim" out=D tracker.steps=4
expect 2 "D already holds a run (metrics.jsonl): continue it with --resume D" err.txt
# out with {time}: the same command again and again, a new directory each time.
run run "$sim" 'out=Q/{time}' tracker.steps=2
expect 0 "run: writing to Q/" out.txt
run run "$sim" 'out=Q/{time}' tracker.steps=2
expect 0 "run: finished at version 2" out.txt
[ "$(ls Q | grep -c -v latest)" = 2 ] || { ls -la Q; fail "two runs, two directories"; }
[ -L Q/latest ] && [ -s Q/latest/metrics.jsonl ] || fail "Q/latest is not the newest run"
newest=$(sed -n 's/^run: writing to //p' out.txt)
[ "$(readlink Q/latest)" = "$(basename "$newest")" ] || fail "Q/latest -> $(readlink Q/latest), not $newest"
run run "$sim" tracker.steps=6 strategy.round_size=16 --resume D
expect 2 'strategy.round_size: "8" then, "16" now' err.txt
grep -q -e "--resume-force" err.txt || fail "no hint of --resume-force"
[ "$(wc -l < D/metrics.jsonl)" = 4 ] || fail "a refused resume touched the metrics"
run run "$sim" tracker.steps=6 strategy.round_size=16 --resume D --resume-force
expect 0 "run: finished at version 6" out.txt
grep -q "resuming from D/checkpoints/step-000004 into D" out.txt || fail "resume line"

# Ctrl-C: exit 130, a checkpoint, and the command to continue with the same overrides.
"$adarl" run "$sim" out=E tracker.steps=100000 actors.sim_latency.step_seconds=0.002 \
  'eval.every=1000' > out.txt 2> err.txt &
pid=$!
i=0
while [ ! -s E/metrics.jsonl ]; do
  i=$((i + 1)); [ $i -lt 3000 ] || fail "the run wrote no step"; sleep 0.01
done
kill -INT $pid
wait $pid
got=$?
expect 130 "continue with: adarl run $sim out=E tracker.steps=100000 actors.sim_latency.step_seconds=0.002 eval.every=1000 --resume E" out.txt
grep -q "^run: stopped at version" out.txt || fail "no stop line"

# Ctrl-C of adarl compare: exit 130 and the same command line to continue with (its
# overrides and flags too: without them it would start another comparison).
"$adarl" compare "$src/configs/compare.yaml" model.kind=simulated compare.out=C \
  compare.select=null compare.equal_steps=0 compare.sample_budget=100000000 \
  actors.sim_latency.step_seconds=0.002 'compare.seeds=[1]' --jobs 1 > out.txt 2> err.txt &
pid=$!
i=0
while [ ! -s C/grpo-n4/seed-1/metrics.jsonl ]; do
  i=$((i + 1)); [ $i -lt 3000 ] || { cat out.txt err.txt; fail "compare wrote no step"; }; sleep 0.01
done
kill -INT $pid
wait $pid
got=$?
[ "$got" = 130 ] || { cat out.txt err.txt; fail "compare: exit status $got, expected 130"; }
grep -q -F "Continue with: adarl compare $src/configs/compare.yaml model.kind=simulated compare.out=C compare.select=null compare.equal_steps=0 compare.sample_budget=100000000 actors.sim_latency.step_seconds=0.002 'compare.seeds=[1]' --jobs 1" out.txt \
  || { cat out.txt; fail "compare's continue line"; }

# Killed before its first checkpoint: --resume starts it again in the same directory.
"$adarl" run "$sim" out=G tracker.steps=100000 actors.sim_latency.step_seconds=0.002 \
  > out.txt 2> err.txt &
pid=$!
i=0
while [ ! -s G/metrics.jsonl ]; do
  i=$((i + 1)); [ $i -lt 3000 ] || fail "the run wrote no step"; sleep 0.01
done
kill -9 $pid
wait $pid 2>/dev/null
run run "$sim" out=G tracker.steps=3 --resume G
expect 0 "run: finished at version 3" out.txt
grep -q "holds no checkpoint yet" err.txt || fail "no word of starting again"
[ "$(wc -l < G/metrics.jsonl)" = 3 ] || fail "the killed run's lines were kept"

run run
expect 2 "config is required" err.txt
run replay --input x --no-such-flag
expect 2 "no-such-flag" err.txt
run run "$src/configs/quickstart.yaml" model.device=cuda:0 out=F
expect 2 "quickstart.yaml: model.device: " err.txt
[ ! -e F ] && [ ! -e runs ] || fail "a refused device started the run"
echo "all rules hold"
