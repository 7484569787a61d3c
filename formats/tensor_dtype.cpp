#include "formats/tensor_dtype.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <string>

namespace adarl {

// The files are little-endian and the element bytes are copied as they are.
static_assert(std::endian::native == std::endian::little,
              "adarl reads safetensors on little-endian hosts");

namespace {

struct dtype_info {
  tensor_dtype dtype;
  std::string_view name;
  size_t size;
};

constexpr std::array<dtype_info, 15> dtypes{{
    {tensor_dtype::boolean, "BOOL", 1},
    {tensor_dtype::u8, "U8", 1},
    {tensor_dtype::i8, "I8", 1},
    {tensor_dtype::f8_e5m2, "F8_E5M2", 1},
    {tensor_dtype::f8_e4m3, "F8_E4M3", 1},
    {tensor_dtype::i16, "I16", 2},
    {tensor_dtype::u16, "U16", 2},
    {tensor_dtype::f16, "F16", 2},
    {tensor_dtype::bf16, "BF16", 2},
    {tensor_dtype::i32, "I32", 4},
    {tensor_dtype::u32, "U32", 4},
    {tensor_dtype::f32, "F32", 4},
    {tensor_dtype::f64, "F64", 8},
    {tensor_dtype::i64, "I64", 8},
    {tensor_dtype::u64, "U64", 8},
}};

}  // namespace

std::optional<tensor_dtype> parse_tensor_dtype(std::string_view name) {
  for (const auto& d : dtypes) {
    if (d.name == name) return d.dtype;
  }
  return std::nullopt;
}

std::string_view dtype_name(tensor_dtype dtype) {
  return dtypes[static_cast<size_t>(dtype)].name;
}

size_t dtype_size(tensor_dtype dtype) {
  return dtypes[static_cast<size_t>(dtype)].size;
}

bool converts_to_float32(tensor_dtype dtype) {
  return dtype == tensor_dtype::f32 || dtype == tensor_dtype::bf16 ||
         dtype == tensor_dtype::f16;
}

float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

float f16_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) {  // infinity or NaN; the payload moves to the top bits
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent != 0) {
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal half: normalize; every one is a normal float32.
  int e = -1;
  do {
    ++e;
    mantissa <<= 1;
  } while ((mantissa & 0x400u) == 0);
  return std::bit_cast<float>(sign | static_cast<uint32_t>(113 - e - 1) << 23 |
                              ((mantissa & 0x3ffu) << 13));
}

uint16_t float_to_bf16(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN: keep it quiet
  }
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);  // ties to even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

uint16_t float_to_f16(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  if (abs >= 0x477ff000u)
    return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs >= 0x38800000u) {                        // normal half (>= 2^-14)
    const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal half or zero: the value in units of 2^-24, rounded to nearest even.
  const int exponent = static_cast<int>(abs >> 23);
  if (exponent < 102) return sign;  // below half of the smallest subnormal
  const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
  const int shift =
      126 - exponent;  // value = mantissa * 2^(exponent-150) = m >> shift units
  const uint32_t q = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  const uint32_t up = rest > half || (rest == half && (q & 1u)) ? 1u : 0u;
  return static_cast<uint16_t>(sign | (q + up));
}

result<bool> to_float32(tensor_dtype dtype, std::span<const std::byte> bytes,
                        std::span<float> out, std::string_view what) {
  if (!converts_to_float32(dtype)) {
    return error{std::string(what) + ": dtype " + std::string(dtype_name(dtype)) +
                 " does not convert to float32 (F32, BF16 or F16 do)"};
  }
  const size_t size = dtype_size(dtype);
  if (bytes.size() % size != 0 || bytes.size() / size != out.size()) {
    return error{std::string(what) + ": " + std::to_string(bytes.size()) + " bytes of " +
                 std::string(dtype_name(dtype)) + " do not make the " +
                 std::to_string(out.size()) + " floats asked for"};
  }
  if (dtype == tensor_dtype::f32) {
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return true;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, bytes.data() + 2 * i, 2);  // the mapping may be unaligned
    out[i] = dtype == tensor_dtype::bf16 ? bf16_to_float(bits) : f16_to_float(bits);
  }
  return true;
}

}  // namespace adarl
