#include "models/arch/rotary.hpp"

namespace adarl {

torch::Tensor rope_inverse_frequencies(const hf_rope& rope, int64_t head_dim) {
  // transformers: 1 / base^(arange(0, dim, 2).float() / dim), in float32.
  auto exponent = torch::arange(0, head_dim, 2, torch::kLong).to(torch::kFloat) / double(head_dim);
  auto inv = 1.0 / torch::pow(torch::full({}, rope.theta, torch::kFloat), exponent);
  if (rope.type == hf_rope::scaling::linear) return inv / rope.factor;
  if (rope.type != hf_rope::scaling::llama3) return inv;
  // _compute_llama3_parameters: long wavelengths slowed by `factor`, short ones kept,
  // a smooth blend between.
  const double old_len = double(rope.original_max_position_embeddings);
  const double low_wavelen = old_len / rope.low_freq_factor;
  const double high_wavelen = old_len / rope.high_freq_factor;
  constexpr double pi = 3.14159265358979323846;
  auto wavelen = 2 * pi / inv;
  auto scaled = torch::where(wavelen > low_wavelen, inv / rope.factor, inv);
  auto smooth = (old_len / wavelen - rope.low_freq_factor) /
                (rope.high_freq_factor - rope.low_freq_factor);
  auto smoothed = (1 - smooth) * scaled / rope.factor + smooth * scaled;
  auto medium = (wavelen >= high_wavelen).logical_and(wavelen <= low_wavelen);
  return torch::where(medium, smoothed, scaled);
}

std::pair<torch::Tensor, torch::Tensor> rotary_cos_sin(const torch::Tensor& inv_freq,
                                                       const torch::Tensor& positions) {
  auto inv = inv_freq.to(positions.device());
  auto freqs = positions.to(torch::kFloat).unsqueeze(-1) * inv;  // [..., Dh/2]
  auto emb = torch::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
}

torch::Tensor apply_rotary(const torch::Tensor& x, const torch::Tensor& cos,
                           const torch::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  auto rotated = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos + rotated * sin;
}

}  // namespace adarl
