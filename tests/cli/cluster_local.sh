#!/bin/sh
# scripts/cluster-local.sh under SIGTERM (docs/guides/reliability.md "Reliability"): a simulated run with one
# remote generator and one remote verifier; SIGTERM to the script stops everything it
# started within seconds (not after stall_seconds): the coordinator stops cleanly with a
# checkpoint, no process of the cluster is left, the script exits 130 and prints the
# command that continues the run; that command, as printed (with tracker.steps lowered),
# resumes from the checkpoint and finishes. A fresh start into the directory is refused.
#   cluster_local.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; for f in script.txt again.txt c-logs/*.log; do echo "== $f"; tail -6 "$f"; done; exit 1; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round($(now) - $1, 2))"; }
lines() { [ -s "$1" ] && wc -l < "$1" || echo 0; }
# The processes this test started, and only those (other tests run workers at the same
# time): everything launched carries ADARL_TEST_TAG in its environment.
tag="cluster-local-$$"
left() {
  for d in /proc/[0-9]*; do
    grep -qsz "^ADARL_TEST_TAG=$tag\$" "$d/environ" || continue
    echo "${d#/proc/} $(tr '\0' ' ' < "$d/cmdline" 2>/dev/null)"
  done
}
ADARL=$adarl CLUSTER_OUT=$work/c
export ADARL CLUSTER_OUT
set -- configs/sim-smoke.yaml 1 1 tracker.steps=100000 actors.sim_latency.step_seconds=0.002 \
  learner.checkpoint_every=5 stall_seconds=600
ADARL_TEST_TAG=$tag bash "$src/scripts/cluster-local.sh" "$@" > script.txt 2>&1 &
script=$!
i=0
while [ "$(lines c/metrics.jsonl)" -lt 8 ]; do
  i=$((i + 1)); [ $i -lt 1200 ] || fail "no progress"; sleep 0.05
done
# The check below could not fail if left() saw nothing: it sees the running cluster.
[ "$(left | grep -c 'adarl worker')" -ge 2 ] || fail "the cluster's workers are not visible: $(left)"
t0=$(now)
kill -TERM $script
i=0
while kill -0 $script 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 400 ] || { kill -9 $script; left | awk '{print $1}' | xargs -r kill -9; fail "the script still runs 20 s after SIGTERM"; }
  sleep 0.05
done
wait $script
got=$?
echo "script: exit status $got $(since "$t0") s after SIGTERM (stall_seconds 600)"
[ "$got" = 130 ] || fail "exit status $got, expected 130"
sleep 0.2
[ -z "$(left)" ] || fail "processes left: $(left)"
v=$(sed -n 's/^run: stopped at version \([0-9]*\); checkpoint .*/\1/p' c-logs/coordinator.log)
[ -n "$v" ] || fail "the coordinator did not stop cleanly"
again=$(sed -n 's/^cluster-local: stopped by SIGTERM; continue with: //p' script.txt)
[ -n "$again" ] || fail "no line to continue with"
echo "printed: $again"
# The printed command (relative to the repository root) with a reachable end.
(export ADARL_TEST_TAG=$tag; cd "$src" && eval "$again tracker.steps=$((v + 5))") > again.txt 2>&1 ||
  fail "the printed command failed"
grep -q "^run: resuming from $work/c/checkpoints/step-0*$v into $work/c" c-logs/coordinator.log ||
  fail "no resume from the checkpoint of version $v"
grep -q "^run: finished at version $((v + 5))" c-logs/coordinator.log || fail "no end"
[ "$(lines c/metrics.jsonl)" = $((v + 5)) ] || fail "$(lines c/metrics.jsonl) step lines"
[ -z "$(left)" ] || fail "processes left after the resumed run: $(left)"
# A fresh start would wipe the run: refused, naming --resume.
bash "$src/scripts/cluster-local.sh" "$@" > fresh.txt 2>&1
got=$?
[ "$got" = 2 ] || fail "a fresh start into the run's directory: exit status $got"
grep -q "holds a run: continue it with .*scripts/cluster-local.sh --resume configs/sim-smoke.yaml 1 1 " fresh.txt ||
  fail "the refusal does not name --resume: $(cat fresh.txt)"
echo "cluster-local: all checks hold"
