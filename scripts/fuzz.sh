#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz into build-fuzz/ (clang, ASan + UBSan) and
# runs each for SECONDS (default 60) on a copy of its seed corpus.
#   scripts/fuzz.sh [--ci] [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 600 dataset
# TARGET is a name of tests/fuzz/corpus/ (pipeline_config, overrides, dataset, replay_log,
# remote_wire, math_answer, math_latex, expr_lang); default: all. --ci (or CI=true): 20 s per target.
# New corpus entries go to build-fuzz/corpus-work/TARGET (kept between runs, so longer
# runs build on earlier ones), crashes to build-fuzz/crashes/TARGET; the tree stays clean.
# Prints executions, seconds and crashes per target; exits 1 when a target crashed.
# Reproduce a crash: build-fuzz/fuzz/fuzz_TARGET CRASH_FILE. JOBS (default 2) sets the
# build's parallelism; the fuzzing itself is one process at a time, at nice 10.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
ci=false
[ "${CI:-}" = "true" ] && ci=true
targets=()
for arg in "$@"; do
  case "$arg" in
    --ci) ci=true ;;
    ''|*[!0-9]*) targets+=("$arg") ;;
    *) seconds=$arg ;;
  esac
done
$ci && seconds=20
all=(pipeline_config overrides dataset replay_log remote_wire math_answer math_latex expr_lang)
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

# Longest input per target: a few times its largest seed, past the parsers' own limits.
max_len() {
  case "$1" in
    pipeline_config | dataset | replay_log) echo 4096 ;;
    remote_wire) echo 2048 ;;
    expr_lang) echo 1200 ;;  # just over expr_limits::max_source
    math_latex) echo 1500 ;;  # past math_limits::max_answer_chars (1000)
    *) echo 1024 ;;
  esac
}

build=build-fuzz
for t in "${targets[@]}"; do
  if [ ! -d "tests/fuzz/corpus/$t" ]; then
    echo "fuzz: unknown target '$t' (known: ${all[*]})" >&2
    exit 2
  fi
done

start=$(date +%s)
if [ ! -f "$build/CMakeCache.txt" ]; then
  # No tests, benches or torch targets: the fuzz targets and the libraries they link.
  # -O1 without NDEBUG keeps assertions; the system allocator leaves malloc to ASan.
  CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S . -B "$build" -DADARL_FUZZ=ON \
    -DADARL_BUILD_TESTS=OFF -DADARL_BUILD_BENCH=OFF -DADARL_ALLOCATOR=system \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
    >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
  rm -f "$build.configure.log"
fi
cmake --build "$build" -j "${JOBS:-2}" --target $(printf 'fuzz_%s ' "${targets[@]}")
built=$(date +%s)
echo "fuzz: built in $((built - start)) s; ${seconds} s per target"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# The one known leak (CLN's load-time globals) is suppressed there, with its reason.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=()
for t in "${targets[@]}"; do
  work="$build/corpus-work/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$work" "$crashes"
  cp -n "tests/fuzz/corpus/$t"/* "$work"/ 2>/dev/null || true
  log="$build/fuzz-$t.log"
  t0=$(date +%s)
  rc=0
  nice -n 10 "$build/fuzz/fuzz_$t" "$work" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
    >"$log" 2>&1 || rc=$?
  t1=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  files=$(grep -o "Test unit written to [^ ]*" "$log" | sed 's/Test unit written to //' || true)
  n=$(printf '%s' "$files" | grep -c . || true)
  line=$(printf '%-16s %12s execs %6s s  %s crash(es)' "$t" "${execs:-?}" "$((t1 - t0))" "$n")
  if [ "$rc" -ne 0 ] || [ "$n" -gt 0 ]; then
    status=1
    line+="  (exit $rc) ${files:-see $log}"
    tail -n 40 "$log" >&2
  fi
  summary+=("$line")
done
echo "fuzz: summary ($(($(date +%s) - start)) s in all)"
printf '  %s\n' "${summary[@]}"
exit $status
