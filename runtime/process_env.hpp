#pragma once
// Environment that libraries read in their own initializers, before main runs, so that
// setting it from main is too late. Executables only (adarl, benches).

namespace adarl {

/// Makes sure the process runs with:
/// - OMP_WAIT_POLICY=PASSIVE: LibTorch's OpenMP threads sleep instead of spinning while
///   they wait, so that they do not fight the actors, TBB and each other on a small
///   machine (docs/development.md "Building by hand"; libgomp reads it when it loads);
/// - OPENBLAS_CORETYPE: OpenBLAS picks its kernels by CPU model when it loads, and
///   Debian 12's OpenBLAS 0.3.21 falls back to its SSE3 kernels ("Prescott") on CPUs it
///   does not know (this machine: an AVX-512 Xeon, family 6 model 207). When OpenBLAS
///   runs pre-AVX kernels on a CPU with AVX-512 (SkylakeX kernels) or AVX2 and FMA
///   (Haswell kernels), as the CPU and the OS report them, the matching kernels are
///   chosen (one-thread GEMM here: 14-18 GFLOP/s with Prescott, 140 with SkylakeX).
/// A value already in the environment is kept. When something had to be set, the
/// program is executed again (/proc/self/exe, same arguments) with it, once: the second
/// start finds everything set. If that fails the program goes on as it is. Call it first
/// in main.
void ensure_process_env(char** argv);

/// The OpenBLAS kernels this process runs ("SkylakeX", "Prescott", ...), or "" when the
/// BLAS in use is not OpenBLAS.
const char* openblas_kernels();

}  // namespace adarl
