#include "formats/tensor_dtype.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace adarl {
namespace {

// An independent definition of IEEE half: value = (-1)^s * m * 2^-24 for exponent 0,
// (1024 + m) * 2^(e - 25) otherwise.
float half_by_formula(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.f : 1.f;
  if (e == 31) return m == 0 ? sign * INFINITY : NAN;
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), -24);
  return sign * std::ldexp(static_cast<float>(1024 + m), e - 25);
}

TEST(TensorDtypeTest, NamesAndSizesAreTheFormats) {
  EXPECT_EQ(parse_tensor_dtype("BF16"), tensor_dtype::bf16);
  EXPECT_EQ(parse_tensor_dtype("F8_E4M3"), tensor_dtype::f8_e4m3);
  EXPECT_EQ(parse_tensor_dtype("bf16"), std::nullopt);  // case-sensitive
  EXPECT_EQ(parse_tensor_dtype("F17"), std::nullopt);
  EXPECT_EQ(dtype_name(tensor_dtype::boolean), "BOOL");
  EXPECT_EQ(dtype_name(tensor_dtype::u64), "U64");
  EXPECT_EQ(dtype_size(tensor_dtype::bf16), 2u);
  EXPECT_EQ(dtype_size(tensor_dtype::i64), 8u);
  EXPECT_EQ(dtype_size(tensor_dtype::f8_e5m2), 1u);
  // Every name parses back to its dtype.
  for (int d = 0; d <= static_cast<int>(tensor_dtype::u64); ++d) {
    const auto dtype = static_cast<tensor_dtype>(d);
    EXPECT_EQ(parse_tensor_dtype(dtype_name(dtype)), dtype);
  }
}

TEST(TensorDtypeTest, HalfToFloatIsExactForEveryBitPattern) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float got = f16_to_float(static_cast<uint16_t>(h));
    const float want = half_by_formula(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
          << std::hex << h;
    }
  }
  EXPECT_EQ(f16_to_float(0x3c00), 1.f);
  EXPECT_EQ(f16_to_float(0x7bff), 65504.f);
  EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.f, -24));
}

TEST(TensorDtypeTest, Bf16ToFloatIsTheUpperHalf) {
  EXPECT_EQ(bf16_to_float(0x3f80), 1.f);
  EXPECT_EQ(bf16_to_float(0xc020), -2.5f);
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.f, -133));  // subnormal
  EXPECT_TRUE(std::isinf(bf16_to_float(0xff80)));
  EXPECT_TRUE(std::isnan(bf16_to_float(0x7fc1)));
}

TEST(TensorDtypeTest, FloatToHalfRoundsToNearestEven) {
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // positive finite halves
    const float v = f16_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(float_to_f16(v), h);
    ASSERT_EQ(float_to_f16(-v), h | 0x8000u);
    const float next =
        h + 1 < 0x7c00 ? f16_to_float(static_cast<uint16_t>(h + 1)) : 65536.f;
    const float mid = (v + next) / 2;  // exact in float32
    const uint32_t even = (h % 2 == 0) ? h : h + 1;
    ASSERT_EQ(float_to_f16(mid), even) << std::hex << h;
    ASSERT_EQ(float_to_f16(std::nextafter(mid, 0.f)), h) << std::hex << h;
    ASSERT_EQ(float_to_f16(std::nextafter(mid, INFINITY)), h + 1) << std::hex << h;
  }
  EXPECT_EQ(float_to_f16(1e6f), 0x7c00);
  EXPECT_EQ(float_to_f16(-INFINITY), 0xfc00);
  EXPECT_EQ(float_to_f16(1e-10f), 0x0000);
  EXPECT_EQ(float_to_f16(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(float_to_f16(NAN) & 0x03ff, 0);
}

TEST(TensorDtypeTest, FloatToBf16RoundsToNearestEven) {
  for (uint32_t b = 0; b < 0x7f80; b += 7) {  // positive finite bf16, sampled
    const float v = bf16_to_float(static_cast<uint16_t>(b));
    ASSERT_EQ(float_to_bf16(v), b);
    const float mid = std::bit_cast<float>((b << 16) | 0x8000u);
    ASSERT_EQ(float_to_bf16(mid), (b % 2 == 0) ? b : b + 1) << std::hex << b;
    ASSERT_EQ(float_to_bf16(std::nextafter(mid, INFINITY)), b + 1) << std::hex << b;
  }
  EXPECT_EQ(float_to_bf16(1.f), 0x3f80);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  // A NaN whose payload sits in the low half stays NaN (not infinity).
  EXPECT_TRUE(
      std::isnan(bf16_to_float(float_to_bf16(std::bit_cast<float>(0x7f800001u)))));
}

TEST(TensorDtypeTest, ToFloat32ConvertsEachFloatDtypeAndRefusesOthers) {
  const std::vector<uint16_t> halves{0x3c00, 0xc000, 0x0001};
  std::vector<float> out(3);
  ASSERT_TRUE(
      to_float32(tensor_dtype::f16, std::as_bytes(std::span(halves)), out, "t").ok());
  EXPECT_EQ(out, (std::vector<float>{1.f, -2.f, std::ldexp(1.f, -24)}));
  const std::vector<uint16_t> bf{0x3f80, 0x4049};
  std::vector<float> out2(2);
  ASSERT_TRUE(
      to_float32(tensor_dtype::bf16, std::as_bytes(std::span(bf)), out2, "t").ok());
  EXPECT_EQ(out2[1], std::bit_cast<float>(0x40490000u));

  const std::vector<int32_t> ints{1, 2};
  auto r = to_float32(tensor_dtype::i32, std::as_bytes(std::span(ints)), out2,
                      "f: tensor 'x'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.err().message,
            "f: tensor 'x': dtype I32 does not convert to float32 (F32, BF16 or F16 do)");
  auto size = to_float32(tensor_dtype::f16, std::as_bytes(std::span(halves)), out2, "f");
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.err().message, "f: 6 bytes of F16 do not make the 2 floats asked for");
}

}  // namespace
}  // namespace adarl
