#include "formats/gguf_writer.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "formats/hf_config.hpp"
#include "formats/safetensors_checkpoint.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// GGUF's value types and the constants this writer uses (ggml's gguf.h).
enum gguf_type : uint32_t {
  t_uint32 = 4,
  t_int32 = 5,
  t_float32 = 6,
  t_bool = 7,
  t_string = 8,
  t_array = 9,
};
constexpr uint32_t ggml_f32 = 0;
constexpr uint64_t alignment = 32;  // general.alignment's default
// llama.cpp's token types.
constexpr int32_t token_normal = 1, token_control = 3, token_user_defined = 4,
                  token_unused = 5;

/// The header and metadata as bytes.
struct buffer {
  std::string bytes;
  template <class T>
  void raw(T v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(std::string_view s) {
    raw(uint64_t(s.size()));
    bytes.append(s);
  }
};

struct kv_writer {
  buffer b;
  uint64_t count = 0;
  void key(std::string_view k, gguf_type t) {
    b.str(k);
    b.raw(uint32_t(t));
    ++count;
  }
  void u32(std::string_view k, uint64_t v) { key(k, t_uint32), b.raw(uint32_t(v)); }
  void f32(std::string_view k, double v) { key(k, t_float32), b.raw(float(v)); }
  void flag(std::string_view k, bool v) { key(k, t_bool), b.raw(uint8_t(v)); }
  void text(std::string_view k, std::string_view v) { key(k, t_string), b.str(v); }
  void texts(std::string_view k, const std::vector<std::string>& v) {
    key(k, t_array);
    b.raw(uint32_t(t_string));
    b.raw(uint64_t(v.size()));
    for (const auto& s : v) b.str(s);
  }
  void ints(std::string_view k, const std::vector<int32_t>& v) {
    key(k, t_array);
    b.raw(uint32_t(t_int32));
    b.raw(uint64_t(v.size()));
    for (int32_t x : v) b.raw(x);
  }
};

/// llama.cpp's name of an HF weight of a Qwen decoder; "" for one it has none of.
std::string gguf_name(const std::string& hf) {
  static const std::map<std::string, std::string> top{
      {"model.embed_tokens.weight", "token_embd.weight"},
      {"model.norm.weight", "output_norm.weight"},
      {"lm_head.weight", "output.weight"}};
  if (auto it = top.find(hf); it != top.end()) return it->second;
  static const std::map<std::string, std::string> layer{
      {"input_layernorm.weight", "attn_norm.weight"},
      {"post_attention_layernorm.weight", "ffn_norm.weight"},
      {"self_attn.q_proj.weight", "attn_q.weight"},
      {"self_attn.q_proj.bias", "attn_q.bias"},
      {"self_attn.k_proj.weight", "attn_k.weight"},
      {"self_attn.k_proj.bias", "attn_k.bias"},
      {"self_attn.v_proj.weight", "attn_v.weight"},
      {"self_attn.v_proj.bias", "attn_v.bias"},
      {"self_attn.o_proj.weight", "attn_output.weight"},
      {"self_attn.q_norm.weight", "attn_q_norm.weight"},
      {"self_attn.k_norm.weight", "attn_k_norm.weight"},
      {"mlp.gate_proj.weight", "ffn_gate.weight"},
      {"mlp.up_proj.weight", "ffn_up.weight"},
      {"mlp.down_proj.weight", "ffn_down.weight"}};
  constexpr std::string_view prefix = "model.layers.";
  if (hf.rfind(prefix, 0) != 0) return "";
  const auto dot = hf.find('.', prefix.size());
  if (dot == std::string::npos) return "";
  auto it = layer.find(hf.substr(dot + 1));
  if (it == layer.end()) return "";
  return "blk." + hf.substr(prefix.size(), dot - prefix.size()) + "." + it->second;
}

/// The tokenizer of `dir` as llama.cpp's gpt2-style metadata, padded to vocab_size.
result<bool> add_tokenizer(kv_writer& kv, const std::string& dir, const hf_config& c) {
  const std::string path = dir + "/tokenizer.json";
  auto text = read_text_file(path);
  if (!text) return text.err();
  const json t = json::parse(*text, nullptr, false);
  if (t.is_discarded() || !t.is_object()) return error{path + ": not a JSON object"};
  const json* model = t.contains("model") ? &t["model"] : nullptr;
  if (!model || model->value("type", "") != "BPE" || !model->contains("vocab") ||
      !(*model)["vocab"].is_object())
    return error{path + ": model: expected a BPE model with a vocab object"};
  std::vector<std::string> tokens(size_t(c.vocab_size));
  std::vector<int32_t> types(size_t(c.vocab_size), token_unused);
  auto place = [&](const std::string& s, int64_t id, int32_t type) -> result<bool> {
    if (id < 0 || id >= c.vocab_size)
      return error{path + ": token \"" + s + "\" has id " + std::to_string(id) +
                   " outside config.json's vocab_size " + std::to_string(c.vocab_size)};
    tokens[size_t(id)] = s;
    types[size_t(id)] = type;
    return true;
  };
  for (const auto& [s, id] : (*model)["vocab"].items()) {
    if (!id.is_number_integer())
      return error{path + ": model.vocab[\"" + s + "\"]: not an id"};
    if (auto ok = place(s, id.get<int64_t>(), token_normal); !ok) return ok;
  }
  if (t.contains("added_tokens") && t["added_tokens"].is_array())
    for (const auto& a : t["added_tokens"]) {
      if (!a.contains("id") || !a.contains("content")) continue;
      const int32_t type = a.value("special", false) ? token_control : token_user_defined;
      if (auto ok = place(a["content"].get<std::string>(), a["id"].get<int64_t>(), type);
          !ok)
        return ok;
    }
  for (size_t i = 0; i < tokens.size(); ++i)
    if (types[i] == token_unused) tokens[i] = "[PAD" + std::to_string(i) + "]";
  std::vector<std::string> merges;
  if (model->contains("merges") && (*model)["merges"].is_array())
    for (const auto& m : (*model)["merges"]) {
      if (m.is_string())
        merges.push_back(m.get<std::string>());
      else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
        merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
      else
        return error{path + ": model.merges: an entry that is not a pair: " + m.dump()};
    }
  kv.text("tokenizer.ggml.model", "gpt2");
  kv.text("tokenizer.ggml.pre", "qwen2");
  kv.texts("tokenizer.ggml.tokens", tokens);
  kv.ints("tokenizer.ggml.token_type", types);
  kv.texts("tokenizer.ggml.merges", merges);
  if (!c.eos_token_ids.empty()) {
    kv.u32("tokenizer.ggml.eos_token_id", uint64_t(c.eos_token_ids[0]));
    kv.u32("tokenizer.ggml.padding_token_id", uint64_t(c.eos_token_ids[0]));
  }
  kv.flag("tokenizer.ggml.add_bos_token", false);
  return true;
}

/// Writes `bytes` to `f` or fails naming `path`.
result<bool> put(std::FILE* f, const void* bytes, size_t n, const std::string& path) {
  if (n && std::fwrite(bytes, 1, n, f) != n) return error{path + ": write failed"};
  return true;
}

}  // namespace

result<uint64_t> write_gguf_from_hf(const std::string& dir, const std::string& out,
                                    std::string_view name) {
  auto config = read_hf_config(dir);
  if (!config) return config.err();
  const hf_config& c = *config;
  if (c.model_type != "qwen2" && c.model_type != "qwen3")
    return error{dir + "/config.json: model_type \"" + c.model_type +
                 "\": adarl writes GGUF for qwen2 and qwen3 decoders only"};
  if (c.rope.type != hf_rope::scaling::none)
    return error{dir + "/config.json: rope_scaling: adarl's GGUF writer keeps none"};
  const std::string arch = c.model_type;
  auto weights = safetensors_checkpoint::open(dir);
  if (!weights) return weights.err();

  kv_writer kv;
  kv.text("general.architecture", arch);
  kv.text("general.name", name);
  kv.u32("general.file_type", 0);  // all float32
  kv.u32(arch + ".context_length", uint64_t(c.max_position_embeddings));
  kv.u32(arch + ".embedding_length", uint64_t(c.hidden_size));
  kv.u32(arch + ".block_count", uint64_t(c.num_hidden_layers));
  kv.u32(arch + ".feed_forward_length", uint64_t(c.intermediate_size));
  kv.u32(arch + ".attention.head_count", uint64_t(c.num_attention_heads));
  kv.u32(arch + ".attention.head_count_kv", uint64_t(c.num_key_value_heads));
  kv.u32(arch + ".attention.key_length", uint64_t(c.head_dim));
  kv.u32(arch + ".attention.value_length", uint64_t(c.head_dim));
  kv.f32(arch + ".rope.freq_base", c.rope.theta);
  kv.f32(arch + ".attention.layer_norm_rms_epsilon", c.rms_norm_eps);
  if (auto ok = add_tokenizer(kv, dir, c); !ok) return ok.err();

  // Tensor infos: llama.cpp's name, dims innermost first, float32, offset in the data.
  struct planned {
    std::string hf, gguf;
    std::vector<int64_t> shape;
    uint64_t offset = 0;
  };
  std::vector<planned> tensors;
  uint64_t offset = 0;
  for (const auto& spec : expected_hf_tensors(c)) {
    planned p{spec.name, gguf_name(spec.name), spec.shape, offset};
    if (p.gguf.empty())
      return error{dir + ": tensor " + spec.name + " has no GGUF name here"};
    int64_t n = 1;
    for (int64_t d : spec.shape) n *= d;
    offset += (uint64_t(n) * 4 + alignment - 1) / alignment * alignment;
    tensors.push_back(std::move(p));
  }
  buffer head;
  head.bytes.append("GGUF", 4);
  head.raw(uint32_t(3));
  head.raw(uint64_t(tensors.size()));
  head.raw(kv.count);
  head.bytes += kv.b.bytes;
  for (const auto& p : tensors) {
    head.str(p.gguf);
    head.raw(uint32_t(p.shape.size()));
    for (auto it = p.shape.rbegin(); it != p.shape.rend(); ++it) head.raw(uint64_t(*it));
    head.raw(ggml_f32);
    head.raw(p.offset);
  }
  head.bytes.resize((head.bytes.size() + alignment - 1) / alignment * alignment, '\0');

  const std::string tmp = out + ".tmp";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(tmp.c_str(), "wb"),
                                                    &std::fclose);
  if (!f) return error{tmp + ": cannot create the file"};
  if (auto ok = put(f.get(), head.bytes.data(), head.bytes.size(), tmp); !ok)
    return ok.err();
  uint64_t written = head.bytes.size();
  std::vector<float> values;
  const char zeros[alignment] = {};
  for (const auto& p : tensors) {
    auto view = weights->tensor(p.hf, p.shape);
    if (!view) return view.err();
    values.resize(size_t(view->numel()));
    if (auto ok = to_float32(*view, values, p.hf); !ok) return ok.err();
    const size_t n = values.size() * sizeof(float);
    if (auto ok = put(f.get(), values.data(), n, tmp); !ok) return ok.err();
    const size_t pad = (alignment - n % alignment) % alignment;
    if (auto ok = put(f.get(), zeros, pad, tmp); !ok) return ok.err();
    written += n + pad;
  }
  if (std::fflush(f.get()) != 0 || ::fsync(fileno(f.get())) != 0)
    return error{tmp + ": write failed"};
  if (std::fclose(f.release()) != 0) return error{tmp + ": write failed"};
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec) return error{out + ": cannot rename " + tmp + " to it: " + ec.message()};
  return written;
}

}  // namespace adarl
