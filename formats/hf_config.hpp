#pragma once
// The architecture of a Hugging Face decoder-only checkpoint of the Qwen2 / Llama family,
// read from its config.json. Torch-free: the config reader validates `model.path` with
// it before anything starts, and `adarl model inspect` prints it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace adarl {

/// Rotary position embedding frequencies (config.json rope_theta, rope_scaling).
struct hf_rope {
  enum class scaling { none, linear, llama3 };
  double theta = 10000.0;       ///< rope_theta: base of the frequencies.
  scaling type = scaling::none;
  double factor = 1.0;          ///< linear and llama3: positions stretched by this.
  double low_freq_factor = 1.0;   ///< llama3.
  double high_freq_factor = 4.0;  ///< llama3.
  int64_t original_max_position_embeddings = 8192;  ///< llama3.
};

/// What adarl's HF decoder (models/arch/hf_model.hpp) needs of config.json. Pre-RMSNorm
/// blocks of grouped-query attention with rotary positions and a SwiGLU MLP.
struct hf_config {
  std::string model_type;          ///< "qwen2", "qwen3" or "llama".
  std::string architecture;        ///< architectures[0], e.g. "Qwen2ForCausalLM".
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_hidden_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_key_value_heads = 0;  ///< Divides num_attention_heads (GQA groups).
  int64_t head_dim = 0;             ///< head_dim, else hidden_size / num_attention_heads.
  int64_t max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  hf_rope rope;
  bool qkv_bias = false;            ///< Qwen2: always; Llama, Qwen3: attention_bias.
  bool o_bias = false;              ///< Llama attention_bias only.
  bool mlp_bias = false;            ///< Llama mlp_bias.
  bool qk_norm = false;             ///< Qwen3: RMSNorm of each head's q and k (over
                                    ///< head_dim) before the rotation.
  bool tie_word_embeddings = false; ///< lm_head shares embed_tokens.weight.
  std::string torch_dtype;          ///< As written ("bfloat16"), informational.
  std::vector<int64_t> eos_token_ids;  ///< eos_token_id (an id or a list).

  /// Parameters of the model (embeddings once when tied). O(1).
  int64_t parameter_count() const;
  /// One line: "qwen2 (Qwen2ForCausalLM): 2 layers, hidden 64, heads 4 / 2 kv, ...".
  std::string summary() const;
};

/// One weight of the architecture: its name in the checkpoint and its shape.
struct hf_tensor_spec {
  std::string name;
  std::vector<int64_t> shape;
};

/// Every weight the architecture of `c` has, in model order (lm_head.weight only when
/// untied): what a checkpoint must hold and what adarl writes. O(layers).
std::vector<hf_tensor_spec> expected_hf_tensors(const hf_config& c);

/// The largest value parse_hf_config accepts for a size key of config.json (vocab_size,
/// hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
/// max_position_embeddings, head_dim): far above any released decoder's, low enough that
/// a damaged or hostile value is refused before anything is allocated. O(1).
int64_t hf_field_bound(std::string_view key);
/// The largest parameter count parse_hf_config accepts (2^37, about 137 billion).
inline constexpr int64_t hf_max_parameters = int64_t{1} << 37;

/// Reads config.json text. Errors name `source` and the key: a missing or mistyped field,
/// a size above hf_field_bound or a parameter count above hf_max_parameters,
/// a model_type or architecture other than the Qwen2 / Llama decoders, an activation
/// other than silu, a sliding window in use, rope_scaling other than none / linear /
/// llama3, a quantized checkpoint, heads that do not divide the width or the kv heads.
result<hf_config> parse_hf_config(std::string_view json_text, std::string_view source);

/// parse_hf_config of DIR/config.json; a missing or unreadable file is an error naming it.
result<hf_config> read_hf_config(const std::string& dir);

/// The text of a whole file, or an error naming it (a small helper of the HF readers).
result<std::string> read_text_file(const std::string& path);

}  // namespace adarl
