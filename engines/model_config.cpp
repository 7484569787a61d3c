#include "engines/model_config.hpp"

namespace adarl {

std::vector<std::string> model_config::problems() const {
  std::vector<std::string> out;
  if (vocab_size < 5) out.push_back("vocab_size: expected at least 5");
  if (d_model < 1) out.push_back("d_model: expected a positive integer");
  if (n_layers < 1) out.push_back("n_layers: expected a positive integer");
  if (n_heads < 1 || (d_model > 0 && d_model % n_heads != 0))
    out.push_back("n_heads: expected a positive divisor of d_model");
  if (d_ff < 1) out.push_back("d_ff: expected a positive integer");
  if (max_len < 2) out.push_back("max_len: expected at least 2");
  return out;
}

int64_t model_config::parameter_count() const {
  const int64_t d = d_model, v = vocab_size, f = d_ff;
  const int64_t block = 2 * 2 * d          // two LayerNorms
                        + 3 * d * d + 3 * d  // qkv
                        + d * d + d          // attention output
                        + d * f + f + f * d + d;  // MLP
  const int64_t head = tied_output ? 0 : v * d;
  return v * d + int64_t{max_len} * d + n_layers * block + 2 * d + head;
}

}  // namespace adarl
