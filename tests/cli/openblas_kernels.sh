#!/bin/sh
# adarl's process environment (runtime/process_env.cpp), seen through OpenBLAS, which
# prints its kernels at each start with OPENBLAS_VERBOSE=2:
# - a LibTorch subcommand (run --help here) started without OMP_WAIT_POLICY restarts
#   once with it: two starts; on a CPU with AVX2 the last start's kernels are not one of
#   OpenBLAS's pre-AVX fallbacks (it sets OPENBLAS_CORETYPE where OpenBLAS fell back);
# - a subcommand without LibTorch (tasks export) starts once.
#   openblas_kernels.sh ADARL
clean="env -u OPENBLAS_CORETYPE -u OMP_WAIT_POLICY OPENBLAS_VERBOSE=2"
out=$($clean "$1" run --help 2>&1)
starts=$(printf '%s\n' "$out" | grep -c '^Core:')
last=$(printf '%s\n' "$out" | grep '^Core:' | tail -n 1)
tasks_starts=$($clean "$1" tasks export --suite math --count 1 2>&1 | grep -c '^Core:')
echo "run --help: $starts starts, last $last; tasks export: $tasks_starts start(s)"
if [ "$starts" != 2 ]; then echo "expected 2 starts of run (one restart)"; exit 1; fi
if [ "$tasks_starts" != 1 ]; then echo "expected 1 start of tasks (no restart)"; exit 1; fi
if ! grep -qw avx2 /proc/cpuinfo; then echo 'kernels-ok (no AVX2 here: not checked)'; exit 0; fi
kernels=$(printf '%s' "${last#Core: }" | tr 'A-Z' 'a-z')
case " prescott core2 penryn dunnington nehalem atom nano katmai coppermine northwood banias athlon opteron opteron_sse3 barcelona bobcat " in
  *" $kernels "*) echo "pre-AVX kernels on an AVX2 CPU: $last"; exit 1 ;;
esac
echo "kernels-ok ($last)"
