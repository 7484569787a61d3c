// token_drawer on vocabularies of HF size (its radix sort, from 4096 ids) against
// draw_token, the plain stable-sort definition.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "models/decode/sampler.hpp"

namespace adarl {
namespace {

TEST(TokenDrawerTest, LargeVocabulariesDrawWhatDrawTokenDraws) {
  std::mt19937 rng(5);
  std::normal_distribution<float> logit(0.f, 3.f);
  for (int32_t v : {4095, 4096, 151936}) {
    std::vector<float> raw(static_cast<size_t>(v));
    for (auto& x : raw) x = logit(rng);
    // Ties (equal probabilities), and ids with no probability at all.
    for (int32_t k = 0; k < v; k += 97) raw[size_t(k)] = 1.5f;
    for (int32_t k = 5; k < v; k += 101) raw[size_t(k)] = -INFINITY;
    float top = -INFINITY;
    for (float x : raw) top = std::max(top, x);
    double z = 0;
    for (float x : raw) z += std::exp(double(x - top));
    std::vector<float> logp(static_cast<size_t>(v)), probs(static_cast<size_t>(v));
    for (int32_t k = 0; k < v; ++k) {
      logp[size_t(k)] = float(raw[size_t(k)] - top - std::log(z));
      probs[size_t(k)] = std::exp(logp[size_t(k)]);
    }
    token_drawer drawer;
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    int distinct_tops = 0;
    for (int i = 0; i < 60; ++i) {
      const double u = uniform(rng);
      const float top_p = i % 3 == 0 ? 1.f : i % 3 == 1 ? 0.9f : 0.3f;
      const int32_t got = drawer.draw(logp.data(), v, top_p, u);
      EXPECT_EQ(got, draw_token(probs, top_p, u)) << "v " << v << " u " << u << " top_p " << top_p;
      distinct_tops += got % 97 == 0;
    }
    EXPECT_LT(distinct_tops, 60);  // not every draw lands on the tied ids
  }
}

}  // namespace
}  // namespace adarl
