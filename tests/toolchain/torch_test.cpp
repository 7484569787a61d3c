// LibTorch 1.13.1 (CPU): tensors, autograd, and the BLAS it calls give right answers.
#include <gtest/gtest.h>

#include <torch/torch.h>

TEST(TorchToolchainTest, MatmulMatchesHandComputedProduct) {
  at::set_num_threads(2);
  auto a = torch::tensor({{1.f, 2.f}, {3.f, 4.f}});
  auto b = torch::tensor({{5.f, 6.f}, {7.f, 8.f}});
  auto c = torch::matmul(a, b);
  EXPECT_FLOAT_EQ(c[0][0].item<float>(), 19.f);
  EXPECT_FLOAT_EQ(c[0][1].item<float>(), 22.f);
  EXPECT_FLOAT_EQ(c[1][0].item<float>(), 43.f);
  EXPECT_FLOAT_EQ(c[1][1].item<float>(), 50.f);
  EXPECT_EQ(at::get_num_threads(), 2);
}

TEST(TorchToolchainTest, LargeGemmAgreesWithDoublePrecision) {
  torch::manual_seed(1);
  auto a = torch::randn({256, 128});
  auto b = torch::randn({128, 64});
  auto diff = (torch::matmul(a, b).to(torch::kDouble) -
               torch::matmul(a.to(torch::kDouble), b.to(torch::kDouble)))
                  .abs()
                  .max()
                  .item<double>();
  EXPECT_LT(diff, 1e-3);
}

TEST(TorchToolchainTest, AutogradGivesDerivativeOfSquare) {
  auto x = torch::tensor({3.f}, torch::requires_grad());
  auto y = (x * x).sum();
  y.backward();
  EXPECT_FLOAT_EQ(x.grad()[0].item<float>(), 6.f);
}

TEST(TorchToolchainTest, CudaIsReportedUnavailableOnCpuBuild) {
  // Debian's LibTorch is CPU-only; configs asking for CUDA must be refused clearly.
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA build of LibTorch is in use";
  EXPECT_EQ(torch::cuda::device_count(), 0);
}
