#include <gtest/gtest.h>
#include "runtime/config_reader.hpp"
TEST(Placeholder, Override) {
  YAML::Node root(YAML::NodeType::Map);
  ASSERT_TRUE(adarl::apply_override(root, "strategy.max_rounds=6").ok());
  EXPECT_EQ(root["strategy"]["max_rounds"].as<int>(), 6);
}
