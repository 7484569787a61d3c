#!/bin/bash
# A full disk or a file size limit never ends a run with exit status 0 (docs/guides/reliability.md
# "Reliability"), without root or a real tmpfs:
# - `ulimit -f` (RLIMIT_FSIZE; SIGXFSZ is not ignored here: adarl must do it itself) on a
#   deterministic run with a tiny transformer: metrics.jsonl outgrows the limit mid-run;
#   exit 1 naming the file and "File too large", no partial checkpoint left, the last
#   complete checkpoint named and complete, metrics.jsonl whole lines only; the printed
#   "continue with" command (--resume), followed with the limit lifted, writes what the
#   uninterrupted run wrote (metrics, evaluations and checkpoint bytes);
# - report.html that cannot be written (a directory in its place): exit 1 naming it, the
#   closing line naming the checkpoint written and the summary not listing the page;
# - the log file on a full disk (a link to /dev/full; skipped without one): exit 1 naming
#   the log file and "No space left on device".
#   disk_full.sh ADARL SOURCE_DIR WORK_DIR
set -u
adarl=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
show() { cat "$1.out" "$1.err"; }
config="$src/configs/quickstart.yaml"
set -- deterministic=true progress=false model.d_model=8 model.n_layers=1 model.n_heads=2 \
  model.d_ff=16 sft.steps=20 sft.count=200 tasks.train=64 tasks.held_out=16 \
  tracker.prompts_per_step=4 tracker.steps=30 learner.checkpoint_every=5 eval.every=10 \
  actors.generator_capacity=16 actors.generators=1
files="model.bin optimizer.safetensors tracker.json carried.cbor meta.json"

"$adarl" run "$config" "$@" out=a > a.out 2> a.err || { show a; fail "the uninterrupted run failed"; }
# The limit: room for 18 of the 30 step lines (so several checkpoints come first); every
# other file the run writes is smaller, so metrics.jsonl is the one that outgrows it.
limit=$(head -n 18 a/metrics.jsonl | wc -c)
for f in a/metrics.csv a/eval.jsonl a/adarl.log a/config.json a/checkpoints/step-000030/*; do
  [ "$(wc -c < "$f")" -lt "$limit" ] || fail "$f is not smaller than the limit ($limit bytes)"
done
blocks=$((limit / 1024))  # bash counts `ulimit -f` in KiB
(ulimit -f "$blocks" && exec "$adarl" run "$config" "$@" out=c) > c.out 2> c.err
got=$?
[ "$got" = 1 ] || { show c; fail "past the file size limit: exit status $got, expected 1"; }
grep -q "^run: metrics: c/metrics.jsonl: cannot write: File too large" c.err ||
  { show c; fail "the error does not name c/metrics.jsonl and File too large"; }
kept=$(sed -n 's/.*the last complete checkpoint: \([^)]*\)).*/\1/p' c.err)
[ -n "$kept" ] && [ -f "$kept/checkpoint.json" ] ||
  { show c; ls -R c/checkpoints; fail "no complete checkpoint named ($kept)"; }
[ "$(cat c/checkpoints/latest)" = "$(basename "$kept")" ] || fail "latest is not $kept"
leftover=$(find c -name '*.partial*' -o -name '*.tmp*')
[ -z "$leftover" ] || fail "partial files left: $leftover"
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "the last line is torn"
for i, line in enumerate(lines[:-1]):
    assert isinstance(json.loads(line), dict), "line %d" % (i + 1)
print("c/metrics.jsonl: %d whole lines, then the limit" % (len(lines) - 1))
' c/metrics.jsonl || fail "c/metrics.jsonl is torn"
echo "past the limit: exit 1, $(basename "$kept") kept, no partial files"
# The command the failure printed, followed as printed.
again=$(sed -n 's/^run: once the cause is fixed, continue with: adarl //p' c.err)
[ -n "$again" ] || { show c; fail "no command to continue with"; }
eval "\"\$adarl\" $again" > r.out 2> r.err || { show r; fail "the resume failed: $again"; }
grep -q "^run: resuming from $kept into c" r.out || { show r; fail "did not resume from $kept"; }
python3 "$src/tests/cli/compare_runs.py" a c $files || fail "the resumed run differs"

# report.html cannot be written: a directory stands where it goes.
sim="$src/configs/sim-smoke.yaml"
mkdir -p p/report.html/inside
"$adarl" run "$sim" out=p tracker.steps=4 > p.out 2> p.err
got=$?
[ "$got" = 1 ] || { show p; fail "report.html not written: exit status $got, expected 1"; }
grep -q "^run: p/report.html: cannot rename p/report.html.tmp.[0-9]* to it: Is a directory" p.err ||
  { show p; fail "the error does not name p/report.html"; }
grep -q "^run: finished at version 4; checkpoint p/checkpoints/step-000004$" p.out &&
  [ -f p/checkpoints/step-000004/checkpoint.json ] || { show p; fail "closing line"; }
grep "^  files " p.out | grep -q "report.html" && { show p; fail "the summary lists report.html"; }
echo "report.html not written: exit 1"

# The log file on a full disk.
if [ -e /dev/full ]; then
  mkdir -p l && ln -s /dev/full l/full.log
  "$adarl" run "$sim" out=l log.file=full.log tracker.steps=4 > l.out 2> l.err
  got=$?
  [ "$got" = 1 ] || { show l; fail "log on a full disk: exit status $got, expected 1"; }
  grep -q "^run: log: l/full.log: cannot write: No space left on device" l.err ||
    { show l; fail "the error does not name l/full.log"; }
  echo "log on a full disk: exit 1"
else
  echo "log on a full disk: skipped (no /dev/full)"
fi
echo "disk full: all checks hold"
