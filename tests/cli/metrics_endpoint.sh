#!/bin/sh
# Watching a run (docs/guides/watching.md "Watching a run"): a simulated-policy run serves its figures on
# metrics.listen (port 0: the run prints the one it got); the page scraped while the run
# goes on passes Prometheus's own checker (promtool check metrics: the text format and
# its naming rules) and carries every series; a second run on the same address stops
# before it starts, naming the key; the endpoint stops with the run; the run ends with
# its summary, report.html, and a log file whose lines name their components while the
# terminal stays quiet. Skipped (status 77) without promtool (Debian package prometheus).
# Usage: metrics_endpoint.sh ADARL SOURCE_DIR WORK_DIR
adarl=$1 src=$2 dir=$3
if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found (apt-get install prometheus): skipped"
  exit 77
fi
if ! command -v curl >/dev/null 2>&1; then
  echo "curl not found: skipped"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; exit 1; }

# The checker itself rejects what it should: a counter without _total, a broken label.
printf '# HELP adarl_x x.\n# TYPE adarl_x counter\nadarl_x{run="a"} 1\n' | promtool check metrics \
  >/dev/null 2>&1 && fail "promtool accepts a counter without _total"
printf 'adarl_y{run="a} 1\n' | promtool check metrics >/dev/null 2>&1 &&
  fail "promtool accepts an unterminated label value"

sim="$src/configs/sim-smoke.yaml"
"$adarl" run "$sim" tracker.steps=60 actors.sim_latency.step_seconds=0.002 \
  actors.sim_latency.min_steps=20 eval.every=10 metrics.listen=127.0.0.1:0 log.level=debug \
  out=run > out.txt 2> err.txt &
pid=$!
url=""
for i in $(seq 300); do
  url=$(sed -n 's/^run: metrics at \(http:[^ ]*\)$/\1/p' out.txt)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || fail "no 'run: metrics at URL' line: $(cat out.txt err.txt)"
echo "endpoint: $url"

# A second run on the same address: exit status 2 before anything starts.
addr=${url#http://}
addr=${addr%/metrics}
"$adarl" run "$sim" "metrics.listen=$addr" out=second > second.txt 2>&1
st=$?
[ "$st" = 2 ] || fail "a second run on $addr: exit status $st"
grep -q "sim-smoke.yaml: metrics.listen: cannot listen on $addr (" second.txt ||
  fail "the second run's error does not name the key: $(cat second.txt)"
[ ! -e second/metrics.jsonl ] && [ ! -e second/adarl.log ] || fail "the second run started"

# Scrape while the run goes on, until the page shows steps, an evaluation and the tracker.
ok=""
while kill -0 "$pid" 2>/dev/null; do
  if curl -sf --max-time 5 "$url" > page.txt &&
     grep -q '^adarl_steps_total{run="sim-smoke"} [1-9]' page.txt &&
     grep -q '^adarl_heldout_accuracy{run="sim-smoke",mode="greedy"} ' page.txt &&
     grep -q '^adarl_orders_in_flight{run="sim-smoke"} ' page.txt; then
    ok=1
    break
  fi
  sleep 0.2
done
[ -n "$ok" ] || fail "no complete page while the run went on: $(cat page.txt 2>/dev/null)"
curl -sfI --max-time 5 "$url" | grep -qi '^content-type: text/plain; version=0.0.4' ||
  fail "not the text format's content type"
promtool check metrics < page.txt > promtool.txt 2>&1
st=$?
echo "promtool check metrics: exit status $st$(cat promtool.txt)"
[ "$st" = 0 ] || fail "promtool rejects the page: $(cat page.txt)"
for name in adarl_steps_total adarl_steps_planned adarl_samples_total adarl_tokens_total \
            adarl_elapsed_seconds adarl_real_reward adarl_zero_gradient_fraction \
            adarl_samples_per_second adarl_tokens_per_second adarl_lag_mean adarl_lag_max \
            adarl_generator_busy_ratio adarl_results_total adarl_orders_in_flight \
            adarl_orders_queued adarl_workers adarl_workers_joined_total \
            adarl_workers_lost_total adarl_orders_reissued_total adarl_heldout_accuracy \
            adarl_heldout_version; do
  grep -q "^# TYPE $name " page.txt || fail "no TYPE line for $name"
  grep -q "^$name{run=\"sim-smoke\"" page.txt || fail "no sample of $name"
done
echo "scraped during the run: $(grep -c '^adarl_' page.txt) samples in $(grep -c '^# TYPE' page.txt) families"

wait "$pid"
st=$?
pid=""
[ "$st" = 0 ] || fail "the run: exit status $st: $(cat err.txt)"
curl -s --max-time 2 "$url" > /dev/null && fail "the endpoint still answers after the run"

# The end of the run: the line tests rely on, the summary, the report, the log.
grep -q '^run: finished at version 60; checkpoint run/checkpoints/step-000060$' out.txt ||
  fail "no finished line: $(cat out.txt)"
grep -q '^  real_reward  [0-9.]* (first 6 steps) -> [0-9.]* (last 6 steps)$' out.txt ||
  fail "no reward line"
grep -q '^  held-out     greedy [0-9.]* (version 0) first, .* (version 60) last$' out.txt ||
  fail "no held-out line"
grep -q '^  files        run: report.html metrics.jsonl metrics.csv eval.jsonl adarl.log checkpoints/$' out.txt ||
  fail "no files line"
grep -q '^run: report at run/report.html when it ends; log in run/adarl.log$' out.txt ||
  fail "no word of the report at the start"
grep -q '<svg' run/report.html || fail "report.html has no chart"
for want in '\[info\] \[run\] run sim-smoke started' '\[debug\] \[tracker\] step 0 generated' \
            '\[debug\] \[learner\] step 59 trained' '\[info\] \[generator 0\] engine ready' \
            '\[info\] \[metrics\] held-out accuracy of version 60' \
            '\[info\] \[learner\] checkpoint run/checkpoints/step-000060 written' \
            '\[info\] \[run\] run finished at version 60'; do
  grep -q "$want" run/adarl.log || fail "no '$want' in run/adarl.log"
done
# The terminal stays quiet: no log line of the components on stderr.
grep -E 'tracker|learner|generator 0|held-out' err.txt && fail "the log reached the terminal"
echo "metrics endpoint: all checks hold"
