// The per-prompt sample pool: requests, dedup and completeness.
#include "algorithms/sample_pool.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(SamplePoolTest, RequestsContinueTheIndices) {
  sample_pool p;
  const auto a = p.request(/*slot=*/3, /*count=*/8);
  EXPECT_EQ(a.slot, 3u);
  EXPECT_EQ(a.first_index, 0u);
  EXPECT_EQ(a.count, 8u);
  const auto b = p.request(3, 5);
  EXPECT_EQ(b.first_index, 8u);
  EXPECT_EQ(b.count, 5u);
  EXPECT_EQ(p.requested(), 13u);
  EXPECT_EQ(p.received(), 0u);
  EXPECT_FALSE(p.complete());
}

TEST(SamplePoolTest, RecordsOnceAndRejectsUnrequestedIndices) {
  sample_pool p;
  p.request(0, 2);
  EXPECT_EQ(p.record(1, 0.9f, 12), result_status::accepted);
  EXPECT_TRUE(p.has(1));
  EXPECT_FALSE(p.has(0));
  EXPECT_FALSE(p.has(7));
  EXPECT_EQ(p.record(1, 0.f, 12), result_status::duplicate);
  EXPECT_EQ(p.record(2, 1.f, 5), result_status::not_requested);
  EXPECT_FLOAT_EQ(p.rewards()[1], 0.9f);  // the duplicate did not overwrite
  EXPECT_EQ(p.tokens(), 12u);
  EXPECT_EQ(p.received(), 1u);
  EXPECT_FALSE(p.complete());
  EXPECT_EQ(p.record(0, 0.f, 3), result_status::accepted);
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.tokens(), 15u);
  // A new request makes it incomplete again.
  p.request(0, 1);
  EXPECT_FALSE(p.complete());
  EXPECT_EQ(p.record(2, 1.f, 5), result_status::accepted);
  EXPECT_TRUE(p.complete());
}

TEST(SamplePoolTest, EmptyPoolIsComplete) {
  const sample_pool p;
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.rewards().empty());
}

}  // namespace
}  // namespace adarl
