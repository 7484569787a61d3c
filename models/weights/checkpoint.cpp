#include "models/weights/checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/atomic_file.hpp"
#include "base/content_hash.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json to_json(const checkpoint_meta& m) {
  const auto& c = m.config;
  return {{"format", "adarl-checkpoint-1"},
          {"step", m.step},
          {"model_hash", m.model_hash},
          {"charset", m.charset},
          {"model",
           {{"vocab_size", c.vocab_size}, {"d_model", c.d_model}, {"n_layers", c.n_layers},
            {"n_heads", c.n_heads}, {"d_ff", c.d_ff}, {"max_len", c.max_len},
            {"tied_output", c.tied_output}}}};
}

std::string shape_text(const model_config& c) {
  std::ostringstream s;
  s << "vocab_size " << c.vocab_size << ", d_model " << c.d_model << ", n_layers "
    << c.n_layers << ", n_heads " << c.n_heads << ", d_ff " << c.d_ff << ", max_len "
    << c.max_len << ", tied_output " << (c.tied_output ? "true" : "false");
  return s.str();
}

bool same_shape(const model_config& a, const model_config& b) {
  return shape_text(a) == shape_text(b);
}

result<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return error{p.string() + ": cannot open the file"};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

namespace {

// The files of a checkpoint in `tmp`, each checked (base/atomic_file.hpp), flushed to
// the disk.
result<bool> write_checkpoint_files(const fs::path& tmp, transformer& model,
                                    optimizer_state* opt, const checkpoint_meta& meta) {
  std::error_code ec;
  if (!fs::create_directories(tmp, ec) && ec)
    return error{tmp.string() + ": cannot create the directory: " + ec.message()};
  const auto snapshot = take_snapshot(model, static_cast<uint64_t>(meta.step));
  const std::string bytes = serialize(*snapshot);
  if (auto ok = write_file_atomic((tmp / "model.bin").string(), bytes); !ok) return ok;
  checkpoint_meta hashed = meta;
  hashed.model_hash = content_hash(bytes);
  const std::string text = to_json(hashed).dump(2) + "\n";
  if (auto ok = write_file_atomic((tmp / "meta.json").string(), text); !ok) return ok;
  if (opt)
    if (auto ok = opt->save_state((tmp / "optimizer.safetensors").string()); !ok) return ok;
  return sync_tree(tmp.string());
}

}  // namespace

result<bool> save_checkpoint(const std::string& dir, transformer& model,
                             optimizer_state* opt, const checkpoint_meta& meta) {
  const fs::path final_dir(dir), tmp(staging_path(dir));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  auto ok = write_checkpoint_files(tmp, model, opt, meta);
  if (ok) ok = replace_directory(tmp.string(), final_dir.string());
  if (!ok) fs::remove_all(tmp, ec);  // a full disk keeps no half-written copy
  return ok;
}

result<checkpoint_meta> read_checkpoint_meta(const std::string& dir) {
  const auto path = fs::path(dir) / "meta.json";
  auto text = read_file(path);
  if (!text) return text.err();
  try {
    const auto j = json::parse(*text);
    if (j.value("format", "") != "adarl-checkpoint-1")
      return error{path.string() + ": not an adarl checkpoint (format)"};
    checkpoint_meta m;
    m.step = j.at("step").get<int64_t>();
    m.charset = j.at("charset").get<std::string>();
    const auto& c = j.at("model");
    m.config.vocab_size = c.at("vocab_size").get<int32_t>();
    m.config.d_model = c.at("d_model").get<int32_t>();
    m.config.n_layers = c.at("n_layers").get<int32_t>();
    m.config.n_heads = c.at("n_heads").get<int32_t>();
    m.config.d_ff = c.at("d_ff").get<int32_t>();
    m.config.max_len = c.at("max_len").get<int32_t>();
    m.config.tied_output = c.at("tied_output").get<bool>();
    m.model_hash = j.value("model_hash", "");
    return m;
  } catch (const json::exception& e) {
    return error{path.string() + ": " + e.what()};
  }
}

result<checkpoint_meta> verify_checkpoint(const std::string& dir) {
  auto meta = read_checkpoint_meta(dir);
  if (!meta) return meta.err();
  const auto bin = (fs::path(dir) / "model.bin").string();
  if (meta->model_hash.empty())
    return error{dir + "/meta.json: no model_hash (written before content hashes): its "
                 "model.bin cannot be checked"};
  auto hash = file_content_hash(bin);
  if (!hash) return hash.err();
  if (*hash != meta->model_hash)
    return error{bin + ": damaged: its content differs from the one written (hash " + *hash +
                 ", meta.json says " + meta->model_hash + ")"};
  return meta;
}

result<checkpoint_meta> load_checkpoint(const std::string& dir, transformer& model,
                                        optimizer_state* opt) {
  auto meta = read_checkpoint_meta(dir);
  if (!meta) return meta.err();
  if (!same_shape(meta->config, model->config()))
    return error{dir + ": the checkpoint's model (" + shape_text(meta->config) +
                 ") differs from the configured one (" + shape_text(model->config()) + ")"};
  const auto bin = fs::path(dir) / "model.bin";
  auto bytes = read_file(bin);
  if (!bytes) return bytes.err();
  if (!meta->model_hash.empty() && content_hash(*bytes) != meta->model_hash)
    return error{bin.string() + ": damaged: its content differs from the one written (hash " +
                 content_hash(*bytes) + ", meta.json says " + meta->model_hash + ")"};
  auto snap = deserialize(*bytes);
  if (!snap) return error{bin.string() + ": " + snap.err().message};
  auto loaded = load_snapshot(model, *snap);
  if (!loaded) return error{bin.string() + ": " + loaded.err().message};
  const auto state_path = fs::path(dir) / "optimizer.safetensors";
  const auto legacy_path = fs::path(dir) / "optimizer.pt";  // checkpoints before 0.2
  if (opt && fs::exists(state_path)) {
    if (auto ok = opt->load_state(state_path.string()); !ok) return ok.err();
    opt->set_steps(meta->step);
  } else if (opt && fs::exists(legacy_path)) {
    if (auto ok = opt->load_legacy_state(legacy_path.string()); !ok) return ok.err();
    opt->set_steps(meta->step);
  }
  return *meta;
}

}  // namespace adarl
