#include "base/random_keys.hpp"

namespace adarl {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t mix_keys(uint64_t a, uint64_t b) { return splitmix64(splitmix64(a) ^ b); }

uint64_t mix_keys(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t h = splitmix64(a);
  h = splitmix64(h ^ b);
  h = splitmix64(h ^ c);
  return splitmix64(h ^ d);
}

double keyed_uniform(uint64_t seed, uint64_t step, uint64_t prompt, uint64_t index) {
  return static_cast<double>(mix_keys(seed, step, prompt, index) >> 11) * 0x1.0p-53;
}

}  // namespace adarl
