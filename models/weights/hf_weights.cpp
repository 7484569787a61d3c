#include "models/weights/hf_weights.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/atomic_file.hpp"
#include "formats/hf_weights_check.hpp"
#include "formats/safetensors.hpp"
#include "formats/safetensors_checkpoint.hpp"
#include "formats/safetensors_writer.hpp"

namespace adarl {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* master_file = "master_weights.safetensors";
constexpr const char* checkpoint_format = "adarl-hf-checkpoint-1";
constexpr const char* hf_subdir = "hf";

// Files of an HF directory besides config.json and the weights, copied when present.
constexpr const char* companion_files[] = {
    "tokenizer.json",         "tokenizer_config.json", "generation_config.json",
    "special_tokens_map.json", "vocab.json",           "merges.txt",
    "added_tokens.json",      "chat_template.jinja",   "chat_template.json"};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Tensors of a checkpoint that transformers skips too.
bool ignorable(const std::string& name, const hf_config& c) {
  return ends_with(name, "rotary_emb.inv_freq") ||
         (c.tie_word_embeddings && name == "lm_head.weight");
}

// Copies the weights of `ckpt` into the model.
result<bool> copy_weights(hf_model& model, const safetensors_checkpoint& ckpt,
                          const std::string& where) {
  auto named = model->named_parameters();
  for (const auto& name : ckpt.names())
    if (!named.contains(name) && !ignorable(name, model->config()))
      return error{where + ": tensor \"" + name + "\" is not part of the " +
                   model->config().model_type + " architecture adarl builds from config.json"};
  torch::NoGradGuard no_grad;
  for (auto& item : named) {
    const auto shape = item.value().sizes().vec();
    auto values = ckpt.tensor_float32(item.key(), shape);
    if (!values) return error{where + ": " + values.err().message};
    auto cpu = torch::from_blob(values->data(), shape, torch::kFloat);
    item.value().copy_(cpu);
  }
  return true;
}

// Bytes of `t` (CPU float32, contiguous) in `dtype`, kept alive in `store`.
std::span<const std::byte> encode(const torch::Tensor& t, tensor_dtype dtype,
                                  std::vector<std::vector<std::byte>>& store) {
  const float* p = t.data_ptr<float>();
  const size_t n = size_t(t.numel());
  std::vector<std::byte> out(n * dtype_size(dtype));
  if (dtype == tensor_dtype::f32) {
    std::memcpy(out.data(), p, n * 4);
  } else {
    for (size_t i = 0; i < n; ++i) {
      const uint16_t bits = dtype == tensor_dtype::bf16 ? float_to_bf16(p[i]) : float_to_f16(p[i]);
      std::memcpy(out.data() + 2 * i, &bits, 2);
    }
  }
  store.push_back(std::move(out));
  return {store.back().data(), store.back().size()};
}

result<bool> write_weights(hf_model& model, const std::string& path, tensor_dtype dtype) {
  std::vector<torch::Tensor> keep;
  std::vector<std::vector<std::byte>> bytes;
  std::vector<tensor_to_write> tensors;
  auto named = model->named_parameters();
  keep.reserve(named.size());
  bytes.reserve(named.size());
  for (const auto& item : named) {
    keep.push_back(item.value().detach().to(torch::kCPU, torch::kFloat).contiguous());
    tensors.push_back({item.key(), dtype, keep.back().sizes().vec(),
                       encode(keep.back(), dtype, bytes)});
  }
  return write_safetensors(path, tensors, pt_format_metadata());
}

result<bool> copy_companion(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return error{from.string() + ": cannot copy to " + to.string() + ": " + ec.message()};
  return true;
}

}  // namespace

result<std::pair<hf_config, hf_source>> read_hf_source(const std::string& dir) {
  hf_source s;
  s.dir = dir;
  auto text = read_text_file(dir + "/config.json");
  if (!text) return text.err();
  auto config = parse_hf_config(*text, dir + "/config.json");
  if (!config) return config.err();
  // The weights' shapes against config.json before anything is allocated: a config
  // that does not describe these weights is refused here, not by the allocator.
  auto ckpt = safetensors_checkpoint::open(dir);
  if (!ckpt) return ckpt.err();
  if (auto problem = hf_weights_problem(*ckpt, *config); !problem.empty())
    return error{dir + ": " + problem};
  s.config_json = std::move(*text);
  return std::pair{std::move(*config), std::move(s)};
}

result<tensor_dtype> load_hf_weights(hf_model& model, const std::string& dir) {
  auto ckpt = safetensors_checkpoint::open(dir);
  if (!ckpt) return ckpt.err();
  auto embed = ckpt->tensor("model.embed_tokens.weight");
  if (!embed) return embed.err();
  if (auto ok = copy_weights(model, *ckpt, dir); !ok) return ok.err();
  return embed->dtype;
}

result<bool> write_hf_files(hf_model& model, const hf_source& source, const std::string& dir) {
  const fs::path out(dir);
  if (auto ok = write_file_atomic((out / "config.json").string(), source.config_json); !ok)
    return ok;
  const tensor_dtype dtype =
      source.dtype == tensor_dtype::bf16 || source.dtype == tensor_dtype::f16 ? source.dtype
                                                                              : tensor_dtype::f32;
  if (auto ok = write_weights(model, (out / "model.safetensors").string(), dtype); !ok) return ok;
  for (const char* name : companion_files) {
    const fs::path from = fs::path(source.dir) / name;
    if (std::error_code ec; !fs::exists(from, ec) || fs::equivalent(from, out / name, ec)) continue;
    if (auto ok = copy_companion(from, out / name); !ok) return ok;
  }
  return true;
}

result<bool> save_hf_checkpoint(const std::string& dir, hf_model& model, const hf_source& source,
                                optimizer_state* opt, int64_t step) {
  const std::string tmp = staging_path(dir);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) && ec)
    return error{tmp + ": cannot create the directory: " + ec.message()};
  if (!fs::create_directories(tmp + "/" + hf_subdir, ec) && ec)
    return error{tmp + "/" + hf_subdir + ": cannot create the directory: " + ec.message()};
  if (auto ok = write_hf_files(model, source, tmp + "/" + hf_subdir); !ok) return ok;
  if (source.dtype != tensor_dtype::f32)
    if (auto ok = write_weights(model, tmp + "/" + master_file, tensor_dtype::f32); !ok) return ok;
  const json meta{{"format", checkpoint_format},
                  {"step", step},
                  {"dtype", std::string(dtype_name(source.dtype))},
                  {"source", source.dir}};
  if (auto ok = write_file_atomic(tmp + "/meta.json", meta.dump(2) + "\n"); !ok) return ok;
  if (opt)
    if (auto ok = opt->save_state(tmp + "/optimizer.safetensors"); !ok) return ok;
  if (auto ok = sync_tree(tmp); !ok) return ok.err();
  return replace_directory(tmp, dir);
}

result<int64_t> load_hf_checkpoint(const std::string& dir, hf_model& model,
                                   optimizer_state* opt) {
  const std::string meta_path = dir + "/meta.json";
  auto text = read_text_file(meta_path);
  if (!text) return text.err();
  int64_t step = 0;
  try {
    const auto j = json::parse(*text);
    if (j.value("format", "") != checkpoint_format)
      return error{meta_path + ": not an adarl HF checkpoint (format)"};
    step = j.at("step").get<int64_t>();
  } catch (const json::exception& e) {
    return error{meta_path + ": " + e.what()};
  }
  // The exact float32 copy when the HF files hold rounded weights.
  const std::string master = dir + "/" + master_file;
  if (std::error_code ec; fs::exists(master, ec)) {
    auto exact = safetensors_checkpoint::open(master);
    if (!exact) return exact.err();
    if (auto ok = copy_weights(model, *exact, master); !ok) return ok.err();
  } else if (auto ok = load_hf_weights(model, dir + "/" + hf_subdir); !ok) {
    return ok.err();
  }
  const std::string state = dir + "/optimizer.safetensors";
  if (opt && fs::exists(state)) {
    if (auto ok = opt->load_state(state); !ok) return ok.err();
    opt->set_steps(step);
  }
  return step;
}

}  // namespace adarl
