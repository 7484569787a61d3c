// The registry of engines (pipelines/engine_registry.hpp): the simulated kind built in,
// the LibTorch kinds absent from libadarl until registered, and a registered kind's
// hooks being what every caller gets.
#include "pipelines/engine_registry.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

pipeline_config config_of(policy_kind kind) {
  pipeline_config c;
  c.policy.kind = kind;
  c.seed = 7;
  return c;
}

TEST(EngineRegistryTest, TheSimulatedKindIsBuiltIn) {
  const auto table = test::math_table(4, 2);
  const auto c = config_of(policy_kind::simulated);
  engine_request r;
  r.config = &c;
  r.prompts = table;
  auto f = engines_for(r);
  ASSERT_TRUE(f) << f.err().message;
  ASSERT_TRUE(f->generator && f->learner);
  auto g = f->generator(0);
  EXPECT_TRUE(g) << g.err().message;
  auto l = f->learner();
  EXPECT_TRUE(l) << l.err().message;
  // A worker builds the same kind from the run's spec.
  const engine_spec spec = run_engine_spec(c, *table);
  EXPECT_EQ(spec.kind, policy_kind::simulated);
  ASSERT_EQ(spec.world.answers.size(), table->rows.size());
  EXPECT_EQ(spec.world.answers.front(), table->rows.front().item.answer);
  EXPECT_EQ(spec.world.seed, 7u);
  auto worker = generator_for_spec(spec, "cpu", 1);
  EXPECT_TRUE(worker) << worker.err().message;
  // Without its prompts it cannot answer, and it has no learner to replicate.
  r.prompts = nullptr;
  EXPECT_FALSE(engines_for(r));
  auto rank = serve_learner_rank(c, 1, 1, nullptr);
  ASSERT_FALSE(rank);
  EXPECT_EQ(rank.err().message, "model.kind simulated has no learner to replicate");
  auto replicable = check_replicable(policy_kind::simulated);
  ASSERT_FALSE(replicable);
  EXPECT_EQ(replicable.err().message, rank.err().message);
  EXPECT_TRUE(check_replicable(policy_kind::transformer));
  EXPECT_TRUE(check_replicable(policy_kind::hf));
}

TEST(EngineRegistryTest, TheLibTorchKindsAreNamedWhenNotRegistered) {
  const auto table = test::math_table(2, 1);
  for (policy_kind kind : {policy_kind::transformer, policy_kind::hf}) {
    const auto c = config_of(kind);
    engine_request r;
    r.config = &c;
    r.prompts = table;
    auto f = engines_for(r);
    ASSERT_FALSE(f);
    const std::string name(policy_kind_name(kind));
    EXPECT_EQ(f.err().message.find("model.kind " + name + ": this program has no engines"), 0u)
        << f.err().message;
    EXPECT_NE(f.err().message.find("register_torch_engines()"), std::string::npos);
    engine_spec spec;
    spec.kind = kind;
    auto g = generator_for_spec(spec, "cpu", 1);
    ASSERT_FALSE(g);
    EXPECT_NE(g.err().message.find("no generation engine"), std::string::npos);
    auto rank = serve_learner_rank(c, 1, 1, nullptr);
    ASSERT_FALSE(rank);
    EXPECT_NE(rank.err().message.find("no learner ranks"), std::string::npos);
  }
}

TEST(EngineRegistryTest, ARegisteredKindIsWhatEveryCallerGets) {
  std::atomic<int> built{0};
  uint32_t rank_seen = 0;
  engine_hooks h;
  h.engines = [&](const engine_request& r) -> result<engine_factories> {
    ++built;
    engine_factories f;
    const std::string base = r.base;
    f.generator = [base](uint32_t) -> result<std::unique_ptr<generation_engine>> {
      return error{"stand-in generator from " + base};
    };
    return f;
  };
  h.learner_rank = [&](const pipeline_config&, uint32_t rank, int32_t,
                       const std::atomic<bool>*) -> result<uint64_t> {
    rank_seen = rank;
    return uint64_t{42};
  };
  register_engines(policy_kind::hf, h);
  const auto c = config_of(policy_kind::hf);
  engine_request r;
  r.config = &c;
  r.base = "base-dir";
  auto f = engines_for(r);
  ASSERT_TRUE(f) << f.err().message;
  EXPECT_EQ(built.load(), 1);
  EXPECT_EQ(f->generator(0).err().message, "stand-in generator from base-dir");
  auto rank = serve_learner_rank(c, 3, 1, nullptr);
  ASSERT_TRUE(rank) << rank.err().message;
  EXPECT_EQ(*rank, 42u);
  EXPECT_EQ(rank_seen, 3u);
  // The generator hook was left unset: named, not called.
  engine_spec spec;
  spec.kind = policy_kind::hf;
  EXPECT_FALSE(generator_for_spec(spec, "cpu", 1));
  register_engines(policy_kind::hf, {});
  EXPECT_FALSE(engines_for(r));
}

// A registration names its kind as a config does (every kind, by the table's name).
TEST(EngineRegistryTest, ARegistrationNamesItsKindByItsConfigName) {
  static_assert(kind_named("transformer") == policy_kind::transformer);
  static_assert(kind_named("simulated") == policy_kind::simulated);
  static_assert(kind_named("hf") == policy_kind::hf);
  for (const auto& k : engine_kinds) {
    auto parsed = parse_policy_kind(k.name);
    ASSERT_TRUE(parsed) << parsed.err().message;
    EXPECT_EQ(*parsed, k.kind) << k.name;
  }
}

TEST(EngineRegistryTest, ASpecAndAFingerprintAreTheKindsOwnData) {
  const auto table = test::math_table(2, 1);
  auto t = config_of(policy_kind::transformer);
  t.policy.model.d_model = 48;
  const engine_spec ts = run_engine_spec(t, *table);
  EXPECT_EQ(ts.kind, policy_kind::transformer);
  EXPECT_EQ(ts.model.d_model, 48);
  EXPECT_EQ(ts.charset, tokenizer::default_charset());
  EXPECT_EQ(ts.model.vocab_size, int32_t(ts.charset.size()) + tokenizer::num_special);
  EXPECT_TRUE(ts.world.answers.empty());
  EXPECT_EQ(policy_fingerprint(t.policy), "");  // its checkpoint's bytes identify it
  auto h = config_of(policy_kind::hf);
  h.policy.hf_path = "/models/qwen";
  EXPECT_EQ(policy_fingerprint(h.policy), "/models/qwen");
  auto s = config_of(policy_kind::simulated);
  s.policy.sim.mean_logit = -1.5;
  s.policy.sim.sd_logit = 2;
  EXPECT_EQ(policy_fingerprint(s.policy), "-1.5 2");
}

}  // namespace
}  // namespace adarl
