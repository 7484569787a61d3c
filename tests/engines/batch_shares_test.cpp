#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engines/batch_shares.hpp"

namespace adarl {
namespace {

TEST(BatchSharesTest, SplitsLargestFirstOntoTheLightestRank) {
  // Largest first: 5 -> r0, 4 -> r1, 3 -> r1 (4 < 5), 2 -> r0 (5 < 7), 1 -> r0 (tie: 7, 7).
  const auto s = split_by_tokens({5, 1, 4, 2, 3}, 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(s[1], (std::vector<size_t>{2, 4}));
}

TEST(BatchSharesTest, EverySampleOnceAndBalancedWithinTheLargestSample) {
  std::mt19937 rng(3);
  for (uint32_t ranks : {1u, 2u, 3u, 8u}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<uint64_t> tokens(rng() % 40);
      for (auto& t : tokens) t = 1 + rng() % 64;
      const auto shares = split_by_tokens(tokens, ranks);
      ASSERT_EQ(shares.size(), ranks);
      std::vector<int> seen(tokens.size(), 0);
      uint64_t total = 0, largest = 0, heaviest = 0;
      for (auto t : tokens) total += t, largest = std::max(largest, t);
      for (const auto& share : shares) {
        EXPECT_TRUE(std::is_sorted(share.begin(), share.end()));
        uint64_t load = 0;
        for (size_t i : share) ++seen[i], load += tokens[i];
        heaviest = std::max(heaviest, load);
      }
      for (int n : seen) EXPECT_EQ(n, 1);
      EXPECT_LE(double(heaviest), double(total) / ranks + double(largest));
      EXPECT_EQ(split_by_tokens(tokens, ranks), shares);  // deterministic
    }
  }
}

TEST(BatchSharesTest, MoreRanksThanSamplesLeavesSomeEmpty) {
  const auto s = split_by_tokens({7}, 3);
  EXPECT_EQ(s[0], (std::vector<size_t>{0}));
  EXPECT_TRUE(s[1].empty());
  EXPECT_TRUE(s[2].empty());
}

std::vector<train_sample> sample_batch() {
  train_sample a;
  a.prompt_id = 42;
  a.prompt = {1, 5, 6, 3};
  a.completion = {7, 8, 2};
  a.behaviour_logprobs = {-0.5f, -0.0f, std::numeric_limits<float>::denorm_min()};
  a.advantage = -1.25f;
  a.reward = 1.f;
  a.version = 9;
  train_sample b;  // an empty completion travels too
  b.prompt_id = 1ull << 40;
  b.prompt = {1};
  return {a, b};
}

TEST(BatchSharesTest, BatchBytesRoundTripBitForBit) {
  const auto batch = sample_batch();
  const auto bytes = encode_train_batch(batch);
  auto back = decode_train_batch(bytes);
  ASSERT_TRUE(back.ok()) << back.err().message;
  ASSERT_EQ(back->size(), 2u);
  const auto& a = (*back)[0];
  EXPECT_EQ(a.prompt_id, 42u);
  EXPECT_EQ(a.prompt, batch[0].prompt);
  EXPECT_EQ(a.completion, batch[0].completion);
  ASSERT_EQ(a.behaviour_logprobs.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(std::memcmp(&a.behaviour_logprobs[i], &batch[0].behaviour_logprobs[i], 4), 0);
  EXPECT_EQ(a.advantage, -1.25f);
  EXPECT_EQ(a.reward, 1.f);
  EXPECT_EQ(a.version, 9u);
  EXPECT_EQ((*back)[1].prompt_id, 1ull << 40);
  EXPECT_TRUE((*back)[1].completion.empty());
  EXPECT_EQ(encode_train_batch(*back), bytes);
  EXPECT_TRUE(decode_train_batch(encode_train_batch({})).ok());
}

TEST(BatchSharesTest, TruncatedOrForeignBytesAreErrors) {
  const auto bytes = encode_train_batch(sample_batch());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decode_train_batch(std::string_view(bytes).substr(0, n)).ok()) << n;
  EXPECT_FALSE(decode_train_batch(bytes + "x").ok());
  auto foreign = bytes;
  foreign[0] = 'X';
  EXPECT_NE(decode_train_batch(foreign).err().message.find("magic"), std::string::npos);
  auto huge = bytes;  // a sample count that cannot fit
  const uint64_t n = ~0ull;
  std::memcpy(huge.data() + 5, &n, 8);
  EXPECT_FALSE(decode_train_batch(huge).ok());
}

}  // namespace
}  // namespace adarl
