#pragma once
// Tensor element types as safetensors names them, with their sizes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/result.hpp"

namespace adarl {

/// Element type of a tensor as the safetensors format names it ("F32", "BF16", ...).
/// The enumerators are in the format's order (increasing alignment); the writer sorts
/// tensors by it, largest first, as the reference implementation does.
enum class tensor_dtype : uint8_t {
  boolean,  ///< "BOOL", one byte.
  u8,
  i8,
  f8_e5m2,  ///< "F8_E5M2"
  f8_e4m3,  ///< "F8_E4M3"
  i16,
  u16,
  f16,   ///< IEEE half precision.
  bf16,  ///< bfloat16: the upper half of a float32.
  i32,
  u32,
  f32,
  f64,
  i64,
  u64,
};

/// The dtype named `name` ("F32", "BF16", ...), or nullopt for a name the format does
/// not define. Case-sensitive, as in the format. O(1).
std::optional<tensor_dtype> parse_tensor_dtype(std::string_view name);

/// The format's name of `dtype` ("BF16"). O(1).
std::string_view dtype_name(tensor_dtype dtype);

/// Bytes per element of `dtype`. O(1).
size_t dtype_size(tensor_dtype dtype);

/// True for the dtypes that to_float32 converts: F32, BF16, F16.
bool converts_to_float32(tensor_dtype dtype);

/// The float32 value of a bfloat16 (exact: the bits shifted into the upper half).
float bf16_to_float(uint16_t bits);
/// The float32 value of an IEEE half (exact, subnormals, infinities and NaN included).
float f16_to_float(uint16_t bits);
/// The nearest bfloat16 of `x`, ties to even; NaN stays NaN (quiet).
uint16_t float_to_bf16(float x);
/// The nearest IEEE half of `x`, ties to even; beyond the half range gives infinity.
uint16_t float_to_f16(float x);

/// Converts the little-endian elements in `bytes` (of `dtype`) to float32 into `out`,
/// which must hold exactly bytes.size() / dtype_size(dtype) floats. F32, BF16 and F16
/// convert exactly. Fails (writing nothing) for another dtype or a size mismatch, naming
/// `what` (e.g. "model.safetensors: tensor 'lm_head.weight'"). O(elements).
result<bool> to_float32(tensor_dtype dtype, std::span<const std::byte> bytes,
                        std::span<float> out, std::string_view what);

}  // namespace adarl
