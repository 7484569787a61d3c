#include "base/device_name.hpp"

#include <gtest/gtest.h>

namespace adarl {
namespace {

TEST(DeviceNameTest, ReadsCpuAndCudaIndices) {
  ASSERT_TRUE(parse_device_name("cpu"));
  EXPECT_FALSE(parse_device_name("cpu")->cuda());
  EXPECT_EQ(parse_device_name("cuda:0")->index, 0);
  EXPECT_EQ(parse_device_name("cuda:17")->index, 17);
  EXPECT_EQ(parse_device_name("cuda:999")->index, 999);
  EXPECT_TRUE(is_cuda_device("cuda:3"));
  EXPECT_FALSE(is_cuda_device("cpu"));
}

TEST(DeviceNameTest, RefusesEverythingElse) {
  for (const char* bad : {"", "gpu", "cuda", "cuda:", "cuda:x", "cuda:1x", "CPU", "cuda:1234",
                          "cuda:-1", " cpu", "cudax0", "cuda"})
    EXPECT_FALSE(parse_device_name(bad)) << '"' << bad << '"';
  EXPECT_FALSE(is_cuda_device("cudafoo"));
}

}  // namespace
}  // namespace adarl
