// The kinds of policy (engines/engine_kind.hpp): one name each, read back by the one
// parser, and the traits every boundary asks instead of branching on the kind.
#include "engines/engine_kind.hpp"

#include <gtest/gtest.h>

#include <array>
#include <set>
#include <string>

#include "engines/engine_spec.hpp"

namespace adarl {
namespace {

TEST(EngineKindTest, EveryKindHasOneNameThatParsesBack) {
  std::set<std::string_view> names;
  for (const auto& k : engine_kinds) {
    EXPECT_EQ(&kind_traits(k.kind), &k);
    EXPECT_EQ(policy_kind_name(k.kind), k.name);
    auto parsed = parse_policy_kind(k.name);
    ASSERT_TRUE(parsed) << k.name;
    EXPECT_EQ(*parsed, k.kind);
    names.insert(k.name);
  }
  EXPECT_EQ(names.size(), engine_kinds.size());
  EXPECT_EQ(policy_kind_name(policy_kind::transformer), "transformer");
  EXPECT_EQ(default_policy_kind, policy_kind::transformer);
}

struct kind_row {
  policy_kind kind;
};

TEST(EngineKindTest, ATableByKindMustListEveryKindInEnumOrder) {
  constexpr std::array<kind_row, 4> in_order{{{policy_kind::transformer},
                                              {policy_kind::simulated},
                                              {policy_kind::hf},
                                              {policy_kind::server}}};
  constexpr std::array<kind_row, 4> swapped{{{policy_kind::simulated},
                                             {policy_kind::transformer},
                                             {policy_kind::hf},
                                             {policy_kind::server}}};
  constexpr std::array<kind_row, 2> short_one{
      {{policy_kind::transformer}, {policy_kind::simulated}}};
  static_assert(rows_in_kind_order(in_order));
  EXPECT_FALSE(rows_in_kind_order(swapped));
  EXPECT_FALSE(rows_in_kind_order(short_one));
}

TEST(EngineKindTest, AnUnknownNameListsTheKnownOnes) {
  for (const char* bad : {"torch", "charset", "Transformer", ""}) {
    auto k = parse_policy_kind(bad);
    ASSERT_FALSE(k) << bad;
    EXPECT_EQ(k.err().message, "expected transformer, simulated, hf or server, got \"" +
                                   std::string(bad) + "\"");
  }
}

TEST(EngineKindTest, TraitsSayWhatEachKindIs) {
  const auto& t = kind_traits(policy_kind::transformer);
  EXPECT_TRUE(t.trains_model);
  EXPECT_TRUE(t.sft_warm_start());
  EXPECT_FALSE(t.model_directory());
  const auto& s = kind_traits(policy_kind::simulated);
  EXPECT_FALSE(s.trains_model);
  EXPECT_FALSE(s.sft_warm_start());
  EXPECT_FALSE(s.model_directory());
  const auto& h = kind_traits(policy_kind::hf);
  EXPECT_TRUE(h.trains_model);
  EXPECT_FALSE(h.sft_warm_start());
  EXPECT_TRUE(h.model_directory());
}

TEST(EngineKindTest, AnEngineSpecCarriesItsKindByName) {
  for (const auto& k : engine_kinds) {
    engine_spec s;
    s.kind = k.kind;
    if (k.model_directory()) {
      s.max_len = 16;
      s.end_ids = {2};
    }
    const std::string text = encode_engine_spec(s);
    EXPECT_NE(text.find("\"kind\":\"" + std::string(k.name) + "\""), std::string::npos) << text;
    auto back = decode_engine_spec(text);
    ASSERT_TRUE(back) << back.err().message;
    EXPECT_EQ(back->kind, k.kind);
  }
  auto bad = decode_engine_spec(R"({"kind":"torch","capacity":4})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().message,
            "engine spec: kind: expected transformer, simulated, hf or server, got \"torch\"");
}

}  // namespace
}  // namespace adarl
