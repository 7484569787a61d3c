// config.json of the Qwen2 / Llama family: what adarl builds, and what it refuses.
#include "formats/hf_config.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace adarl {
namespace {

// Qwen2.5-Math-1.5B's config.json (the fields that matter).
nlohmann::json qwen25_math() {
  return {{"architectures", {"Qwen2ForCausalLM"}},
          {"model_type", "qwen2"},
          {"vocab_size", 151936},
          {"hidden_size", 1536},
          {"intermediate_size", 8960},
          {"num_hidden_layers", 28},
          {"num_attention_heads", 12},
          {"num_key_value_heads", 2},
          {"max_position_embeddings", 4096},
          {"rms_norm_eps", 1e-6},
          {"rope_theta", 10000.0},
          {"rope_scaling", nullptr},
          {"hidden_act", "silu"},
          {"tie_word_embeddings", true},
          {"use_sliding_window", false},
          {"sliding_window", 4096},
          {"torch_dtype", "bfloat16"},
          {"eos_token_id", 151643}};
}

/// Elements of every tensor of `tensors`.
int64_t numel_of(const std::vector<hf_tensor_spec>& tensors) {
  int64_t numel = 0;
  for (const auto& t : tensors) {
    int64_t n = 1;
    for (auto d : t.shape) n *= d;
    numel += n;
  }
  return numel;
}

std::string refusal(nlohmann::json j) {
  auto c = parse_hf_config(j.dump(), "dir/config.json");
  return c.ok() ? std::string("accepted") : c.err().message;
}

TEST(HfConfigTest, Qwen25MathHasItsPublishedShapeAndParameterCount) {
  auto c = parse_hf_config(qwen25_math().dump(), "dir/config.json");
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->head_dim, 128);
  EXPECT_TRUE(c->qkv_bias);
  EXPECT_FALSE(c->o_bias);
  EXPECT_FALSE(c->mlp_bias);
  EXPECT_TRUE(c->tie_word_embeddings);
  EXPECT_EQ(c->rope.type, hf_rope::scaling::none);
  EXPECT_EQ(c->eos_token_ids, (std::vector<int64_t>{151643}));
  // 1.54 B: the figure of the model card (embeddings counted once, tied).
  EXPECT_EQ(c->parameter_count(), 1543714304);
  EXPECT_NE(c->summary().find("28 layers, hidden 1536, heads 12 / 2 kv of 128"), std::string::npos)
      << c->summary();
}

TEST(HfConfigTest, LlamaReadsBiasesHeadDimAndLlama3Scaling) {
  auto j = qwen25_math();
  j["model_type"] = "llama";
  j["architectures"] = {"LlamaForCausalLM"};
  j["attention_bias"] = true;
  j["head_dim"] = 64;
  j["tie_word_embeddings"] = false;
  j["eos_token_id"] = {128001, 128009};
  j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 32.0}, {"low_freq_factor", 1.0},
                       {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 8192}};
  auto c = parse_hf_config(j.dump(), "dir/config.json");
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->head_dim, 64);
  EXPECT_TRUE(c->qkv_bias && c->o_bias);
  EXPECT_EQ(c->rope.type, hf_rope::scaling::llama3);
  EXPECT_DOUBLE_EQ(c->rope.factor, 32.0);
  EXPECT_EQ(c->rope.original_max_position_embeddings, 8192);
  EXPECT_EQ(c->eos_token_ids, (std::vector<int64_t>{128001, 128009}));
  // Untied: the output projection counts again; o_proj gains its bias.
  auto tied = qwen25_math();
  tied["head_dim"] = 64;
  EXPECT_GT(c->parameter_count(), parse_hf_config(tied.dump(), "x")->parameter_count());
  j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  EXPECT_EQ(parse_hf_config(j.dump(), "x")->rope.type, hf_rope::scaling::linear);
}

// Qwen3-4B's config.json (the fields that matter): q/k norms, head_dim 128 with 32
// heads over a hidden of 2560, no biases.
nlohmann::json qwen3_4b() {
  return {{"architectures", {"Qwen3ForCausalLM"}},
          {"model_type", "qwen3"},
          {"vocab_size", 151936},
          {"hidden_size", 2560},
          {"intermediate_size", 9728},
          {"num_hidden_layers", 36},
          {"num_attention_heads", 32},
          {"num_key_value_heads", 8},
          {"head_dim", 128},
          {"max_position_embeddings", 40960},
          {"rms_norm_eps", 1e-6},
          {"rope_theta", 1000000},
          {"rope_scaling", nullptr},
          {"hidden_act", "silu"},
          {"attention_bias", false},
          {"tie_word_embeddings", true},
          {"use_sliding_window", false},
          {"sliding_window", nullptr},
          {"max_window_layers", 36},
          {"torch_dtype", "bfloat16"},
          {"eos_token_id", 151645}};
}

TEST(HfConfigTest, Qwen3HasQkNormsItsOwnHeadDimAndThePublishedParameterCount) {
  auto c = parse_hf_config(qwen3_4b().dump(), "dir/config.json");
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_TRUE(c->qk_norm);
  EXPECT_FALSE(c->qkv_bias || c->o_bias || c->mlp_bias);
  EXPECT_EQ(c->head_dim, 128);
  // Qwen3-4B: 4,022,468,096 parameters (the embeddings once: tied), of which
  // 36 x 2 x 128 are the q/k norms.
  EXPECT_EQ(c->parameter_count(), 4'022'468'096);
  const auto tensors = expected_hf_tensors(*c);
  EXPECT_EQ(numel_of(tensors), c->parameter_count());
  EXPECT_EQ(tensors[5].name, "model.layers.0.self_attn.q_norm.weight");
  EXPECT_EQ(tensors[5].shape, (std::vector<int64_t>{128}));
  EXPECT_EQ(tensors[6].name, "model.layers.0.self_attn.k_norm.weight");
  EXPECT_NE(c->summary().find("q/k norm"), std::string::npos);
  // Qwen3 with attention_bias reads it for q, k, v and o, as Llama does.
  auto j = qwen3_4b();
  j["attention_bias"] = true;
  auto biased = parse_hf_config(j.dump(), "x");
  ASSERT_TRUE(biased.ok());
  EXPECT_TRUE(biased->qkv_bias && biased->o_bias && biased->qk_norm);
  // Qwen2 and Llama have no q/k norms.
  EXPECT_FALSE(parse_hf_config(qwen25_math().dump(), "x")->qk_norm);
}

TEST(HfConfigTest, UnsupportedArchitecturesAreRefusedNamingTheKey) {
  auto j = qwen25_math();
  j["model_type"] = "gemma2";
  EXPECT_NE(refusal(j).find("dir/config.json: model_type: \"gemma2\" is not supported"),
            std::string::npos);
  j = qwen25_math();
  j["model_type"] = "qwen3_moe";
  j["architectures"] = {"Qwen3MoeForCausalLM"};
  EXPECT_NE(refusal(j).find("model_type: \"qwen3_moe\" is a mixture of experts"),
            std::string::npos);
  j = qwen25_math();
  j["model_type"] = "qwen3";  // a Qwen2 architecture name under qwen3
  EXPECT_NE(refusal(j).find("architectures: \"Qwen2ForCausalLM\" is not supported (expected "
                            "Qwen3ForCausalLM)"),
            std::string::npos);
  j = qwen25_math();
  j["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}};
  EXPECT_NE(refusal(j).find("rope_scaling: type \"yarn\" is not supported"), std::string::npos);
  j = qwen25_math();
  j["use_sliding_window"] = true;
  EXPECT_NE(refusal(j).find("use_sliding_window"), std::string::npos);
  j = qwen25_math();
  j["hidden_act"] = "gelu";
  EXPECT_NE(refusal(j).find("hidden_act: \"gelu\""), std::string::npos);
  j = qwen25_math();
  j["num_key_value_heads"] = 5;
  EXPECT_NE(refusal(j).find("num_key_value_heads: expected a divisor"), std::string::npos);
  j = qwen25_math();
  j.erase("hidden_size");
  EXPECT_NE(refusal(j).find("hidden_size: missing"), std::string::npos);
  j = qwen25_math();
  j["quantization_config"] = {{"quant_method", "gptq"}};
  EXPECT_NE(refusal(j).find("quantization_config"), std::string::npos);
  j = qwen25_math();
  j["architectures"] = {"Qwen2ForSequenceClassification"};
  EXPECT_NE(refusal(j).find("architectures"), std::string::npos);
  EXPECT_NE(refusal(nlohmann::json::array()).find("expected a JSON object"), std::string::npos);
  EXPECT_NE(read_hf_config("/nonexistent-adarl-dir").err().message.find(
                "/nonexistent-adarl-dir/config.json: cannot open"),
            std::string::npos);
}

}  // namespace
}  // namespace adarl

namespace adarl {
namespace {

// Issue 38: sizes past any released decoder's are refused by key before anything is
// allocated (num_hidden_layers 10^9 grew `model inspect` to 24 GB; hidden_size 10^9
// and vocab_size 2^40 reached LibTorch's allocator).
TEST(HfConfigTest, SizesBeyondAnyDecoderAreRefusedNamingTheKey) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, int64_t>>{{"num_hidden_layers", 1000000000},
                                                    {"hidden_size", 1000000000},
                                                    {"vocab_size", int64_t{1} << 40},
                                                    {"intermediate_size", int64_t{1} << 30},
                                                    {"num_attention_heads", 1 << 20},
                                                    {"max_position_embeddings", int64_t{1} << 40}}) {
    auto j = qwen25_math();
    j[key] = value;
    const auto why = refusal(j);
    EXPECT_NE(why.find("dir/config.json: " + key + ": expected at most"), std::string::npos)
        << key << ": " << why;
  }
  auto j = qwen25_math();
  j["head_dim"] = 1 << 14;
  EXPECT_NE(refusal(j).find("head_dim: expected at most 4096"), std::string::npos) << refusal(j);
  // Each size within its bound, the whole above the parameter bound.
  j = qwen25_math();
  j["hidden_size"] = 65536;
  j["num_attention_heads"] = 512;
  j["intermediate_size"] = 262144;
  j["num_hidden_layers"] = 1000;
  EXPECT_NE(refusal(j).find("parameters, above adarl's bound"), std::string::npos) << refusal(j);
  EXPECT_EQ(refusal(qwen25_math()), "accepted");
}

TEST(HfConfigTest, ExpectedTensorsCountThePublishedParameters) {
  auto c = parse_hf_config(qwen25_math().dump(), "x");
  ASSERT_TRUE(c.ok());
  const auto tensors = expected_hf_tensors(*c);
  EXPECT_EQ(numel_of(tensors), c->parameter_count());
  EXPECT_EQ(tensors.size(), 1u + 28 * 12 + 1);  // no lm_head: tied
  EXPECT_EQ(tensors[2].name, "model.layers.0.self_attn.q_proj.bias");
  EXPECT_EQ(tensors[3].name, "model.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(tensors[3].shape, (std::vector<int64_t>{256, 1536}));  // k_proj: 2 kv heads
  EXPECT_EQ(tensors[4].name, "model.layers.0.self_attn.k_proj.bias");
  EXPECT_EQ(tensors[4].shape, (std::vector<int64_t>{256}));
  EXPECT_EQ(tensors.back().name, "model.norm.weight");
}

}  // namespace
}  // namespace adarl
