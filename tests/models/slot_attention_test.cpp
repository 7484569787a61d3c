#include "models/arch/slot_attention.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

// A cache of 5 slots, 3 heads, 12 positions, head_dim 10 (not a multiple of 8, so the
// kernel's remainder loop runs), with random stale values everywhere.
struct fixture {
  torch::Tensor k = torch::randn({5, 3, 12, 10}), v = torch::randn({5, 3, 12, 10});
};

// Tokens of one pass: slot 1 decodes at position 7 (keys 0..6 cached), slot 3 prefills a
// prompt at positions 0..4, slot 4 decodes at position 11 (the last one), slot 0 at 0.
struct pass {
  torch::Tensor slots = torch::tensor({1, 3, 3, 3, 3, 3, 4, 0}, torch::kLong);
  torch::Tensor positions = torch::tensor({7, 0, 1, 2, 3, 4, 11, 0}, torch::kLong);
  torch::Tensor qkv = torch::randn({8, 3 * 3 * 10});
};

TEST(SlotAttentionTest, FusedKernelMatchesTheReferenceAndWritesTheSameCache) {
  torch::manual_seed(3);
  fixture a;
  fixture b{a.k.clone(), a.v.clone()};
  pass p;
  auto fused = slot_attention(p.qkv, p.slots, p.positions, a.k, a.v);
  auto reference = slot_attention_reference(p.qkv, p.slots, p.positions, b.k, b.v);
  ASSERT_EQ(fused.sizes(), reference.sizes());
  EXPECT_LT((fused - reference).abs().max().item<float>(), 1e-5f);
  EXPECT_TRUE(torch::equal(a.k, b.k));
  EXPECT_TRUE(torch::equal(a.v, b.v));
  // The new key of token 0 sits at slot 1, position 7, head 2.
  EXPECT_TRUE(torch::equal(a.k[1][2][7], p.qkv[0].narrow(0, 30 + 20, 10)));
}

TEST(SlotAttentionTest, AQueryIgnoresKeysAfterItsPositionAndOtherSlots) {
  torch::manual_seed(4);
  fixture a;
  pass p;
  auto before = slot_attention(p.qkv, p.slots, p.positions, a.k, a.v);
  // Garbage after each token's position and in slot 2 (used by no token) changes nothing.
  a.k[1].narrow(1, 8, 4).fill_(1e3);
  a.v[1].narrow(1, 8, 4).fill_(-1e3);
  a.k[2].fill_(7);
  a.k[3].narrow(1, 5, 7).fill_(1e3);
  auto after = slot_attention(p.qkv, p.slots, p.positions, a.k, a.v);
  EXPECT_TRUE(torch::equal(before, after));
  // A query at position 0 sees only its own value: the output is that value.
  EXPECT_LT((after[7] - p.qkv[7].narrow(0, 60, 30)).abs().max().item<float>(), 1e-6f);
}

TEST(SlotAttentionTest, OutOfRangePositionFailsFast) {
  fixture a;
  auto qkv = torch::randn({1, 90});
  EXPECT_THROW(slot_attention(qkv, torch::tensor({0}, torch::kLong),
                              torch::tensor({12}, torch::kLong), a.k, a.v),
               c10::Error);
}

}  // namespace
}  // namespace adarl
