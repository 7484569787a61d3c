#include <gtest/gtest.h>

#include "models/train/optimizer.hpp"
#include "models/decode/sampler.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {
namespace {

model_config small() {
  model_config c;
  c.vocab_size = 10;
  c.d_model = 8;
  c.n_layers = 1;
  c.n_heads = 2;
  c.d_ff = 16;
  c.max_len = 12;
  return c;
}

TEST(OptimizerTest, WarmupRampsLinearlyThenHolds) {
  transformer m(small());
  optimizer_config oc;
  oc.lr = 0.01;
  oc.warmup_steps = 4;
  policy_optimizer opt(m, oc);
  std::vector<double> lrs;
  for (int i = 0; i < 6; ++i) {
    lrs.push_back(opt.next_lr());
    opt.zero_grad();
    for (auto& p : m->parameters()) p.mutable_grad() = torch::zeros_like(p);
    opt.step();
  }
  EXPECT_DOUBLE_EQ(lrs[0], 0.0025);
  EXPECT_DOUBLE_EQ(lrs[1], 0.005);
  EXPECT_DOUBLE_EQ(lrs[3], 0.01);
  EXPECT_DOUBLE_EQ(lrs[5], 0.01);
  EXPECT_EQ(opt.steps(), 6);
}

TEST(OptimizerTest, ReportsPreClipNormAndClipsToOne) {
  transformer m(small());
  policy_optimizer opt(m, {});
  opt.zero_grad();
  int64_t n = 0;
  for (auto& p : m->parameters()) {
    p.mutable_grad() = torch::full_like(p, 1.0);
    n += p.numel();
  }
  EXPECT_NEAR(opt.step(), std::sqrt(double(n)), 1e-3);
  double after = 0;
  for (auto& p : m->parameters()) after += p.grad().pow(2).sum().item<double>();
  EXPECT_NEAR(std::sqrt(after), 1.0, 1e-4);
}

TEST(SnapshotTest, RoundTripsThroughBytesAndReproducesLogits) {
  torch::manual_seed(1);
  transformer a(small());
  auto snap = take_snapshot(a, 7);
  auto bytes = serialize(*snap);
  auto back = deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.err().message;
  EXPECT_EQ(back->version, 7u);
  torch::manual_seed(2);
  transformer b(small());
  auto tokens = torch::tensor({{1, 4, 5, 6}}, torch::kLong);
  auto mask = torch::ones({1, 4}, torch::kBool);
  torch::NoGradGuard g;
  EXPECT_FALSE(torch::allclose(a->forward(tokens, mask), b->forward(tokens, mask)));
  ASSERT_TRUE(load_snapshot(b, *back).ok());
  EXPECT_TRUE(torch::equal(a->forward(tokens, mask), b->forward(tokens, mask)));
}

TEST(SnapshotTest, SnapshotIsImmutableAgainstLaterTraining) {
  transformer a(small());
  auto snap = take_snapshot(a, 1);
  const auto before = snap->params[0].second.clone();
  {
    torch::NoGradGuard g;
    for (auto& p : a->parameters()) p.add_(1.0);
  }
  EXPECT_TRUE(torch::equal(snap->params[0].second, before));
}

TEST(SnapshotTest, TruncatedOrForeignBytesAreErrorsAndShapeMismatchLeavesModelAlone) {
  transformer a(small());
  const auto bytes = serialize(*take_snapshot(a, 3));
  for (size_t cut : {size_t{0}, size_t{4}, size_t{12}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(deserialize(bytes.substr(0, cut)).ok()) << "cut at " << cut;
  EXPECT_EQ(deserialize("PK\x03\x04 not a snapshot").err().message,
            "weight snapshot: not an adarl snapshot (bad magic)");
  EXPECT_FALSE(deserialize(bytes + "x").ok());

  auto other = small();
  other.d_ff = 32;
  transformer b(other);
  const auto b_before = b->named_parameters()["block0.fc1.weight"].clone();
  auto loaded = load_snapshot(b, *deserialize(bytes));
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.err().message.find("block0.fc1.weight"), std::string::npos);
  EXPECT_TRUE(torch::equal(b->named_parameters()["block0.fc1.weight"], b_before));
}

}  // namespace
}  // namespace adarl
