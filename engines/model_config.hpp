#pragma once
// The shape of the built-in transformer policy (torch-free: config readers check it).

#include <cstdint>
#include <string>
#include <vector>

namespace adarl {

/// Shape of the built-in decoder-only transformer policy (pre-LayerNorm, learned
/// positions). Saved with every checkpoint; a checkpoint loads only into the same shape.
struct model_config {
  int32_t vocab_size = 100;   ///< From the tokenizer.
  int32_t d_model = 128;      ///< Residual width.
  int32_t n_layers = 2;       ///< Transformer blocks.
  int32_t n_heads = 4;        ///< Attention heads; divides d_model.
  int32_t d_ff = 512;         ///< Hidden width of the MLP.
  int32_t max_len = 128;      ///< Longest sequence (prompt + completion), positions.
  bool tied_output = true;    ///< Output projection shares the token embedding.

  /// Problems with the shape, each as "key: what is wrong" (empty when valid).
  std::vector<std::string> problems() const;
  /// Parameters of a model of this shape.
  int64_t parameter_count() const;
};

}  // namespace adarl
