#!/bin/sh
# `adarl run` embedded (experiments/run_job.hpp): examples/embed_run runs 3 steps of
# configs/sim-smoke.yaml through the library call, then resumes the run to 6 steps; the
# run directory holds the 6 steps, their checkpoint, the report and the log, as
# `adarl run` then `adarl run --resume` would leave it.
#   embed_run.sh EMBED_RUN SOURCE_DIR WORK_DIR
set -u
embed_run=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "FAIL: $*"; cat out.txt err.txt 2>/dev/null; exit 1; }

"$embed_run" "$src/configs/sim-smoke.yaml" R > out.txt 2> err.txt
got=$?
cat out.txt
[ "$got" = 0 ] || fail "exit status $got, expected 0"
grep -q "^embed_run: trained to version 3 in R; checkpoint R/checkpoints/step-000003$" out.txt ||
  fail "no line of the 3-step run"
grep -q "^embed_run: resumed to version 6 in R; checkpoint R/checkpoints/step-000006$" out.txt ||
  fail "no line of the resumed run"
grep -q "^embed_run: metrics.jsonl holds 6 steps; the job said it resumed from R/checkpoints/step-000003$" out.txt ||
  fail "no line of the resumed run's metrics"
[ "$(wc -l < R/metrics.jsonl)" = 6 ] || fail "R/metrics.jsonl does not hold 6 steps"
[ "$(sed -n '4p' R/metrics.jsonl | sed 's/.*"step":\([0-9]*\).*/\1/')" = 3 ] ||
  fail "the 4th line of R/metrics.jsonl is not step 3"
for f in checkpoints/step-000003 checkpoints/step-000006 report.html adarl.log eval.jsonl; do
  [ -e "R/$f" ] || fail "R/$f is missing"
done
[ ! -s err.txt ] || fail "something on stderr"
echo "embed run: all checks hold"
