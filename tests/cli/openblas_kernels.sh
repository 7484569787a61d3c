#!/bin/sh
# adarl runs OpenBLAS's AVX kernels on a CPU that has AVX2: started without
# OPENBLAS_CORETYPE, the kernels OpenBLAS reports last (after adarl's restart, where one
# was needed) are not one of its pre-AVX fallbacks (runtime/process_env.cpp).
#   openblas_kernels.sh ADARL
out=$(env -u OPENBLAS_CORETYPE -u OMP_WAIT_POLICY OPENBLAS_VERBOSE=2 "$1" --version 2>&1)
printf '%s\n' "$out"
last=$(printf '%s\n' "$out" | grep '^Core:' | tail -n 1)
if ! grep -qw avx2 /proc/cpuinfo; then echo 'kernels-ok (no AVX2 here: not checked)'; exit 0; fi
if [ -z "$last" ]; then echo "no Core: line from OpenBLAS"; exit 1; fi
kernels=$(printf '%s' "${last#Core: }" | tr 'A-Z' 'a-z')
case " prescott core2 penryn dunnington nehalem atom nano katmai coppermine northwood banias athlon opteron opteron_sse3 barcelona bobcat " in
  *" $kernels "*) echo "pre-AVX kernels on an AVX2 CPU: $last"; exit 1 ;;
esac
echo "kernels-ok ($last)"
