#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (packages), builds everything and runs the tests.
#   scripts/test.sh                   the README's command: build into build/, run ctest
#   scripts/test.sh --sanitize        ASan+UBSan build of the torch-free tests (build-asan/)
#                                     and TSan build of the actor and remote tests
#                                     (build-tsan/), each run there (docs/development.md "Sanitizers")
#   scripts/test.sh --sanitize --ci   the ASan+UBSan test binaries alone (CI's stage)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=false
ci=false
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=true ;;
    --ci) ci=true ;;
    *) echo "usage: scripts/test.sh [--sanitize [--ci]]" >&2; exit 2 ;;
  esac
done
if $ci && ! $sanitize; then
  echo "scripts/test.sh: --ci selects the sanitizer subset: use it with --sanitize" >&2
  exit 2
fi

if ! $sanitize; then
  bash scripts/setup.sh
  # llama.cpp's llama-server for the tests that run a real inference server
  # (tests/models/llama_server_test.cpp): Debian sid's build needs a newer C library than
  # Debian 12's, so scripts/llama_server.sh puts it and its libraries in a prefix outside
  # the tree (about 30 s, 14 MB of packages), never into the system.
  bash scripts/llama_server.sh install ||
    echo "test: llama-server could not be installed: its tests skip (CI fails them)"
  bash scripts/build.sh
  cd build
  ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 600
  exit 0
fi

bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
supp=$PWD/tests/sanitizers
# UBSan is fatal at compile time (-fno-sanitize-recover), its null check through
# halt_on_error; ASan stops at its first report; LSan runs at every test process's exit.
# TSan reports every race, then exits with 66. tests/sanitizers/*.supp say why each is there.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_init_order=1:detect_stack_use_after_return=1
export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=suppressions=$supp/ubsan.supp:print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=suppressions=$supp/tsan.supp:print_suppressions=0:second_deadlock_stack=1:history_size=4:ignore_noninstrumented_modules=1

# sanitizer_build DIR KIND TARGET...: configures DIR with ADARL_SANITIZE=KIND (-O1 with
# assertions, the system allocator, no benches) and builds TARGET...
sanitizer_build() {
  local dir=$1 kind=$2
  shift 2
  cmake -S . -B "$dir" -DADARL_SANITIZE="$kind" -DADARL_ALLOCATOR=system \
    -DADARL_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" >"$dir.configure.log" 2>&1 || {
    cat "$dir.configure.log"; exit 1; }
  rm -f "$dir.configure.log"
  cmake --build "$dir" -j "$jobs" --target "$@"
}

# sanitizer_ctest DIR INCLUDE EXCLUDE: the tests of DIR whose names match INCLUDE and not
# EXCLUDE. Tests of binaries that were not built (TARGET_NOT_BUILT) are never run.
sanitizer_ctest() {
  (cd "$1" && ctest --output-on-failure -j "$jobs" --timeout 900 -R "$2" -E "$3|_NOT_BUILT\$")
}

# ASan+UBSan: every torch-free test binary. Torch tests are left out (docs/development.md
# "Sanitizers"): LibTorch is not instrumented and its TUs take minutes to build here.
asan_targets=(base_tests algorithms_tests math_tests tasks_tests tokenizers_tests formats_tests engines_tests
              actors_tests runtime_tests net_tests config_tests report_tests experiments_tests)
asan_include='^(base|algorithms|math|tasks|tokenizers|formats|engines|actors|runtime|net|config|report|experiments)\.'
asan_exclude='^$'
# TSan: the actor protocol tests, the remote verifier and generator tests (ZeroMQ
# threads) and the self-checks of the CAF hooks (tests/sanitizers: a clean hand-off stays
# clean, a real race between two actors is reported).
tsan_targets=(actors_tests net_tests tsan_selftest)
tsan_include='^actors\.|^net\.|^sanitizers\.'
tsan_exclude='^$'

status=0
t0=$(date +%s)
sanitizer_build build-asan address "${asan_targets[@]}"
t1=$(date +%s)
sanitizer_ctest build-asan "$asan_include" "$asan_exclude" || status=1
t2=$(date +%s)
echo "sanitize: ASan+UBSan built in $((t1 - t0)) s, tests ran in $((t2 - t1)) s"

if ! $ci; then
  sanitizer_build build-tsan thread "${tsan_targets[@]}"
  t3=$(date +%s)
  sanitizer_ctest build-tsan "$tsan_include" "$tsan_exclude" || status=1
  t4=$(date +%s)
  echo "sanitize: TSan built in $((t3 - t2)) s, tests ran in $((t4 - t3)) s"
fi
exit $status
