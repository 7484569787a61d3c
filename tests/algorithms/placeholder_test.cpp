#include <gtest/gtest.h>
#include "algorithms/objective.hpp"
TEST(Placeholder, LogWeight) { EXPECT_DOUBLE_EQ(adarl::objective{}.weight(0.25), 4.0); }
