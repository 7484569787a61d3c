#include <gtest/gtest.h>

#include "models/device.hpp"

namespace adarl {
namespace {

TEST(DeviceTest, CpuParsesAndBadNamesAreExplained) {
  auto cpu = parse_device("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(cpu->is_cpu());
  for (const char* bad : {"gpu", "cuda", "cuda:", "cuda:x", "CPU"}) {
    auto r = parse_device(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.err().message.find("expected \"cpu\" or \"cuda:N\""), std::string::npos);
  }
}

TEST(DeviceTest, CudaWithoutCudaBuildSaysSoClearly) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "CUDA LibTorch in use";
  auto r = parse_device("cuda:0");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("has no CUDA"), std::string::npos) << r.err().message;
}

}  // namespace
}  // namespace adarl
