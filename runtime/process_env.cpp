#include "runtime/process_env.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace adarl {

namespace {

/// The kernels OPENBLAS_CORETYPE should name on this CPU, or nullptr when OpenBLAS's own
/// choice stands.
const char* wanted_kernels() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

/// OpenBLAS's kernels that use no AVX: on a CPU with AVX2 they mean it was not recognized.
bool pre_avx(std::string name) {
  for (auto& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* k : {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom",
                        "nano", "katmai", "coppermine", "northwood", "banias", "athlon",
                        "opteron", "opteron_sse3", "barcelona", "bobcat"})
    if (name == k) return true;
  return false;
}

}  // namespace

const char* openblas_kernels() {
  using corename_fn = char* (*)();
  auto f = reinterpret_cast<corename_fn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = f ? f() : nullptr;
  return name ? name : "";
}

void ensure_process_env(char** argv) {
  bool changed = false;
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    changed = true;
  }
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr && pre_avx(openblas_kernels()))
    if (const char* k = wanted_kernels()) {
      setenv("OPENBLAS_CORETYPE", k, 1);
      changed = true;
    }
  if (changed) execv("/proc/self/exe", argv);  // returns only on failure: go on as is
}

}  // namespace adarl
