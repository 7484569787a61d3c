#include "formats/hf_config.hpp"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace adarl {

using nlohmann::json;

namespace {

// An error "SOURCE: KEY: what".
error fail(std::string_view source, const std::string& key, const std::string& what) {
  return error{std::string(source) + ": " + key + ": " + what};
}

// A positive integer field; `fallback` < 0 makes it required.
result<int64_t> positive(const json& j, std::string_view source, const char* key,
                         int64_t fallback = -1) {
  if (!j.contains(key) || j[key].is_null()) {
    if (fallback >= 0) return fallback;
    return fail(source, key, "missing (expected a positive integer)");
  }
  if (!j[key].is_number_integer() || j[key].get<int64_t>() <= 0)
    return fail(source, key, "expected a positive integer, got " + j[key].dump());
  return j[key].get<int64_t>();
}

result<double> positive_number(const json& j, std::string_view source, const char* key,
                               double fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_number() || !(j[key].get<double>() > 0))
    return fail(source, key, "expected a positive number, got " + j[key].dump());
  return j[key].get<double>();
}

result<bool> flag(const json& j, std::string_view source, const char* key, bool fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) return fail(source, key, "expected true or false, got " + j[key].dump());
  return j[key].get<bool>();
}

result<hf_rope> read_rope(const json& j, std::string_view source) {
  hf_rope r;
  auto theta = positive_number(j, source, "rope_theta", 10000.0);
  if (!theta) return theta.err();
  r.theta = *theta;
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return r;
  const auto& s = j["rope_scaling"];
  if (!s.is_object()) return fail(source, "rope_scaling", "expected an object or null");
  std::string type;
  for (const char* key : {"rope_type", "type"})
    if (s.contains(key) && s[key].is_string()) type = s[key].get<std::string>();
  if (type.empty() || type == "default") return r;
  auto factor = positive_number(s, source, "factor", 1.0);
  if (!factor) return error{factor.err().message + " (in rope_scaling)"};
  r.factor = *factor;
  if (type == "linear") {
    r.type = hf_rope::scaling::linear;
    return r;
  }
  if (type == "llama3") {
    r.type = hf_rope::scaling::llama3;
    auto low = positive_number(s, source, "low_freq_factor", 1.0);
    auto high = positive_number(s, source, "high_freq_factor", 4.0);
    auto original = positive(s, source, "original_max_position_embeddings", 8192);
    if (!low || !high || !original)
      return fail(source, "rope_scaling", "llama3: expected positive low_freq_factor, "
                                          "high_freq_factor and original_max_position_embeddings");
    if (!(*high > *low))
      return fail(source, "rope_scaling", "llama3: high_freq_factor must exceed low_freq_factor");
    r.low_freq_factor = *low;
    r.high_freq_factor = *high;
    r.original_max_position_embeddings = *original;
    return r;
  }
  return fail(source, "rope_scaling",
              "type \"" + type + "\" is not supported (supported: none/default, linear, llama3; "
              "dynamic, yarn and longrope change positions beyond the trained context)");
}

// The architecture checks: family, activation, window, quantization.
result<bool> check_family(const json& j, std::string_view source, hf_config& c) {
  if (!j.contains("model_type") || !j["model_type"].is_string())
    return fail(source, "model_type", "missing (expected \"qwen2\", \"qwen3\" or \"llama\")");
  c.model_type = j["model_type"].get<std::string>();
  if (c.model_type == "qwen3_moe" || c.model_type == "qwen2_moe" || c.model_type == "mixtral")
    return fail(source, "model_type",
                "\"" + c.model_type + "\" is a mixture of experts, which adarl does not run "
                "(its dense decoders: qwen2, qwen3, llama)");
  if (c.model_type != "qwen2" && c.model_type != "qwen3" && c.model_type != "llama")
    return fail(source, "model_type",
                "\"" + c.model_type + "\" is not supported (supported: qwen2 for Qwen2 and "
                "Qwen2.5, qwen3 for dense Qwen3, llama for Llama 1-3.x; mixtures of experts "
                "and sliding-window models are not)");
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()) {
    c.architecture = j["architectures"][0].get<std::string>();
    const std::string want = c.model_type == "qwen2"   ? "Qwen2ForCausalLM"
                             : c.model_type == "qwen3" ? "Qwen3ForCausalLM"
                                                       : "LlamaForCausalLM";
    if (c.architecture != want)
      return fail(source, "architectures",
                  "\"" + c.architecture + "\" is not supported (expected " + want + ")");
  }
  const std::string act = j.value("hidden_act", std::string("silu"));
  if (act != "silu")
    return fail(source, "hidden_act", "\"" + act + "\" is not supported (the SwiGLU MLP uses silu)");
  auto window = flag(j, source, "use_sliding_window", false);
  if (!window) return window.err();
  if (*window)
    return fail(source, "use_sliding_window", "true is not supported (full attention only)");
  if (j.contains("quantization_config") && !j["quantization_config"].is_null())
    return fail(source, "quantization_config",
                "quantized checkpoints are not supported (load float weights: F32, BF16 or F16)");
  return true;
}

}  // namespace

int64_t hf_config::parameter_count() const {
  const int64_t h = hidden_size, q = num_attention_heads * head_dim,
                kv = num_key_value_heads * head_dim, f = intermediate_size;
  const int64_t attention = h * q + 2 * h * kv + q * h + (qkv_bias ? q + 2 * kv : 0) +
                            (o_bias ? h : 0);
  const int64_t mlp = 3 * h * f + (mlp_bias ? 2 * f + h : 0);
  const int64_t layer = attention + mlp + 2 * h + (qk_norm ? 2 * head_dim : 0);
  return vocab_size * h * (tie_word_embeddings ? 1 : 2) + num_hidden_layers * layer + h;
}

std::string hf_config::summary() const {
  std::ostringstream s;
  s << model_type << " (" << (architecture.empty() ? "no architectures" : architecture)
    << "): " << num_hidden_layers << " layers, hidden " << hidden_size << ", heads "
    << num_attention_heads << " / " << num_key_value_heads << " kv of " << head_dim
    << ", mlp " << intermediate_size << ", vocab " << vocab_size << ", "
    << (tie_word_embeddings ? "tied" : "untied") << " embeddings, rope theta " << rope.theta;
  if (rope.type == hf_rope::scaling::linear) s << " (linear x" << rope.factor << ")";
  if (rope.type == hf_rope::scaling::llama3) s << " (llama3 x" << rope.factor << ")";
  s << ", context " << max_position_embeddings;
  if (qkv_bias) s << ", q/k/v bias";
  if (o_bias) s << ", o bias";
  if (mlp_bias) s << ", mlp bias";
  if (qk_norm) s << ", q/k norm";
  return s.str();
}

std::vector<hf_tensor_spec> expected_hf_tensors(const hf_config& c) {
  const int64_t h = c.hidden_size, q = c.num_attention_heads * c.head_dim,
                kv = c.num_key_value_heads * c.head_dim, f = c.intermediate_size;
  std::vector<hf_tensor_spec> out{{"model.embed_tokens.weight", {c.vocab_size, h}}};
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::string a = p + "self_attn.", m = p + "mlp.";
    out.push_back({a + "q_proj.weight", {q, h}});
    if (c.qkv_bias) out.push_back({a + "q_proj.bias", {q}});
    out.push_back({a + "k_proj.weight", {kv, h}});
    if (c.qkv_bias) out.push_back({a + "k_proj.bias", {kv}});
    out.push_back({a + "v_proj.weight", {kv, h}});
    if (c.qkv_bias) out.push_back({a + "v_proj.bias", {kv}});
    out.push_back({a + "o_proj.weight", {h, q}});
    if (c.o_bias) out.push_back({a + "o_proj.bias", {h}});
    if (c.qk_norm) {
      out.push_back({a + "q_norm.weight", {c.head_dim}});
      out.push_back({a + "k_norm.weight", {c.head_dim}});
    }
    for (const char* name : {"gate_proj", "up_proj"}) {
      out.push_back({m + name + ".weight", {f, h}});
      if (c.mlp_bias) out.push_back({m + name + ".bias", {f}});
    }
    out.push_back({m + "down_proj.weight", {h, f}});
    if (c.mlp_bias) out.push_back({m + "down_proj.bias", {h}});
    out.push_back({p + "input_layernorm.weight", {h}});
    out.push_back({p + "post_attention_layernorm.weight", {h}});
  }
  out.push_back({"model.norm.weight", {h}});
  if (!c.tie_word_embeddings) out.push_back({"lm_head.weight", {c.vocab_size, h}});
  return out;
}

int64_t hf_field_bound(std::string_view key) {
  if (key == "vocab_size") return int64_t{1} << 22;               // 4,194,304
  if (key == "hidden_size") return int64_t{1} << 16;              // 65,536
  if (key == "intermediate_size") return int64_t{1} << 19;        // 524,288
  if (key == "num_hidden_layers") return 1024;
  if (key == "num_attention_heads") return 1024;
  if (key == "max_position_embeddings") return int64_t{1} << 24;  // 16,777,216
  if (key == "head_dim") return 4096;
  return std::numeric_limits<int64_t>::max();
}

result<hf_config> parse_hf_config(std::string_view json_text, std::string_view source) {
  hf_config c;
  try {
    const json j = json::parse(json_text);
    if (!j.is_object()) return error{std::string(source) + ": expected a JSON object"};
    if (auto ok = check_family(j, source, c); !ok) return ok.err();
    int64_t* fields[] = {&c.vocab_size, &c.hidden_size, &c.intermediate_size,
                         &c.num_hidden_layers, &c.num_attention_heads,
                         &c.max_position_embeddings};
    const char* names[] = {"vocab_size", "hidden_size", "intermediate_size",
                           "num_hidden_layers", "num_attention_heads",
                           "max_position_embeddings"};
    for (size_t i = 0; i < std::size(fields); ++i) {
      auto v = positive(j, source, names[i]);
      if (!v) return v.err();
      if (*v > hf_field_bound(names[i]))
        return fail(source, names[i],
                    "expected at most " + std::to_string(hf_field_bound(names[i])) +
                        " (no released decoder comes near; a damaged config.json?), got " +
                        std::to_string(*v));
      *fields[i] = *v;
    }
    auto kv = positive(j, source, "num_key_value_heads", c.num_attention_heads);
    if (!kv) return kv.err();
    c.num_key_value_heads = *kv;
    if (c.num_attention_heads % c.num_key_value_heads != 0)
      return fail(source, "num_key_value_heads",
                  "expected a divisor of num_attention_heads (" +
                      std::to_string(c.num_attention_heads) + "), got " + std::to_string(*kv));
    const bool explicit_head_dim = j.contains("head_dim") && !j["head_dim"].is_null();
    if (!explicit_head_dim && c.hidden_size % c.num_attention_heads != 0)
      return fail(source, "num_attention_heads", "expected a divisor of hidden_size");
    auto head_dim = positive(j, source, "head_dim", c.hidden_size / c.num_attention_heads);
    if (!head_dim) return head_dim.err();
    c.head_dim = *head_dim;
    if (c.head_dim % 2 != 0) return fail(source, "head_dim", "expected an even number (rotary)");
    if (c.head_dim > hf_field_bound("head_dim"))
      return fail(source, "head_dim", "expected at most " +
                                          std::to_string(hf_field_bound("head_dim")) + ", got " +
                                          std::to_string(c.head_dim));
    auto eps = positive_number(j, source, "rms_norm_eps", 1e-6);
    if (!eps) return eps.err();
    c.rms_norm_eps = *eps;
    auto rope = read_rope(j, source);
    if (!rope) return rope.err();
    c.rope = *rope;
    auto tie = flag(j, source, "tie_word_embeddings", false);
    if (!tie) return tie.err();
    c.tie_word_embeddings = *tie;
    if (c.model_type == "qwen2") {
      c.qkv_bias = true;
    } else {  // llama and qwen3: attention_bias for q/k/v and o alike
      c.qk_norm = c.model_type == "qwen3";
      auto bias = flag(j, source, "attention_bias", false);
      auto mlp = flag(j, source, "mlp_bias", false);
      if (!bias) return bias.err();
      if (!mlp) return mlp.err();
      c.qkv_bias = c.o_bias = *bias;
      c.mlp_bias = *mlp;
    }
    c.torch_dtype = j.value("torch_dtype", std::string());
    if (j.contains("eos_token_id")) {
      const auto& e = j["eos_token_id"];
      if (e.is_number_integer()) c.eos_token_ids.push_back(e.get<int64_t>());
      else if (e.is_array())
        for (const auto& x : e) c.eos_token_ids.push_back(x.get<int64_t>());
      else if (!e.is_null())
        return fail(source, "eos_token_id", "expected an id or a list of ids");
    }
    if (c.parameter_count() > hf_max_parameters)
      return fail(source, "num_hidden_layers",
                  "the architecture has " + std::to_string(c.parameter_count()) +
                      " parameters, above adarl's bound of " + std::to_string(hf_max_parameters) +
                      " (hidden_size " + std::to_string(c.hidden_size) + ", vocab_size " +
                      std::to_string(c.vocab_size) + ")");
  } catch (const json::exception& e) {
    return error{std::string(source) + ": " + e.what()};
  }
  return c;
}

result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{path + ": cannot open the file"};
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return error{path + ": read failed"};
  return s.str();
}

result<hf_config> read_hf_config(const std::string& dir) {
  const std::string path = dir + "/config.json";
  auto text = read_text_file(path);
  if (!text) return text.err();
  return parse_hf_config(*text, path);
}

}  // namespace adarl
