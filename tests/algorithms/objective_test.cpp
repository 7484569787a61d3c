// Objectives f and their weights f' (docs/algorithm.md "The objective and its weight").
#include "algorithms/objective.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace adarl {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

TEST(ObjectiveTest, LinearIsPWithWeightOne) {
  const objective f{objective_kind::linear};
  EXPECT_DOUBLE_EQ(f.value(0.3), 0.3);
  EXPECT_DOUBLE_EQ(f.weight(0.3), 1.0);
  EXPECT_DOUBLE_EQ(f.weight(0.0), 1.0);
  EXPECT_EQ(f.name(), "linear");
}

TEST(ObjectiveTest, LogIsTheDefaultWithWeightOneOverP) {
  const objective f;
  EXPECT_EQ(f.kind, objective_kind::log);
  EXPECT_DOUBLE_EQ(f.value(0.25), std::log(0.25));
  EXPECT_DOUBLE_EQ(f.weight(0.25), 4.0);
  EXPECT_DOUBLE_EQ(f.weight(0.01), 100.0);
  EXPECT_EQ(f.value(0.0), -inf);
  EXPECT_EQ(f.weight(0.0), inf);
  EXPECT_EQ(f.name(), "log");
}

TEST(ObjectiveTest, PowerIsPToTheAlphaWithWeightAlphaPToAlphaMinusOne) {
  const objective half{objective_kind::power, 0.5};
  EXPECT_DOUBLE_EQ(half.value(0.25), 0.5);
  EXPECT_DOUBLE_EQ(half.weight(0.25), 1.0);  // 0.5 * 0.25^-0.5
  const objective quarter{objective_kind::power, 0.25};
  EXPECT_DOUBLE_EQ(quarter.value(1.0 / 16), 0.5);
  EXPECT_DOUBLE_EQ(quarter.weight(1.0 / 16), 2.0);  // 0.25 * 16^0.75 = 0.25 * 8
  EXPECT_EQ(quarter.weight(0.0), inf);
  EXPECT_DOUBLE_EQ(quarter.value(0.0), 0.0);
  EXPECT_EQ(quarter.name(), "power");
}

TEST(ObjectiveTest, WeightIsTheDerivativeOfValue) {
  for (auto f : {objective{objective_kind::linear}, objective{objective_kind::log},
                 objective{objective_kind::power, 0.3}}) {
    for (double p : {0.05, 0.2, 0.5, 0.9}) {
      const double h = 1e-6;
      const double numeric = (f.value(p + h) - f.value(p - h)) / (2 * h);
      EXPECT_NEAR(f.weight(p), numeric, 1e-5 * std::max(1.0, numeric))
          << f.name() << " " << p;
    }
  }
}

TEST(ObjectiveTest, ParseKnownAndUnknownNames) {
  for (auto k : {objective_kind::linear, objective_kind::log, objective_kind::power}) {
    const objective f{k};
    const auto parsed = parse_objective_kind(f.name());
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, k);
  }
  const auto bad = parse_objective_kind("Log");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("\"Log\""), std::string::npos);
  EXPECT_NE(bad.err().message.find("linear, log, power"), std::string::npos);
}

}  // namespace
}  // namespace adarl
