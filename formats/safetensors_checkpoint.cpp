#include "formats/safetensors_checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace adarl {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

result<safetensors_checkpoint> safetensors_checkpoint::open(const std::string& path) {
  safetensors_checkpoint c;
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    const auto index = fs::path(path) / "model.safetensors.index.json";
    const auto single = fs::path(path) / "model.safetensors";
    if (fs::exists(index, ec)) {
      file = index.string();
    } else if (fs::exists(single, ec)) {
      file = single.string();
    } else {
      return error{path + ": neither model.safetensors.index.json nor model.safetensors"};
    }
  }
  c.source_ = file;
  if (!ends_with(file, ".index.json")) {
    auto f = safetensors_file::open(file);
    if (!f.ok()) return f.err();
    for (const auto& name : f->names()) c.shard_of_.emplace(name, 0);
    c.shards_.push_back(std::move(*f));
    return c;
  }

  std::ifstream in(file, std::ios::binary);
  if (!in) return error{file + ": cannot open"};
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    return error{file + ": not valid JSON: " + e.what()};
  }
  if (!index.is_object() || !index.contains("weight_map") ||
      !index["weight_map"].is_object()) {
    return error{file + ": expected an object with a \"weight_map\" object"};
  }
  const fs::path dir = fs::path(file).parent_path();
  std::map<std::string, size_t> shard_index;  // shard file name -> index in shards_
  for (const auto& [name, shard_json] : index["weight_map"].items()) {
    if (!shard_json.is_string()) {
      return error{file + ": weight_map: tensor '" + name +
                   "': expected a shard file name"};
    }
    const auto shard = shard_json.get<std::string>();
    auto it = shard_index.find(shard);
    if (it == shard_index.end()) {
      const fs::path rel(shard);
      bool escapes = rel.is_absolute() || rel.empty();
      for (const auto& part : rel) escapes = escapes || part == "..";
      if (escapes) {
        return error{file + ": weight_map: tensor '" + name + "': shard '" + shard +
                     "' is not a file name inside the checkpoint directory"};
      }
      const fs::path shard_path = dir / rel;
      if (!fs::exists(shard_path, ec)) {
        return error{file + ": weight_map: tensor '" + name + "' is in shard '" + shard +
                     "', but " + shard_path.string() + " does not exist"};
      }
      auto f = safetensors_file::open(shard_path.string());
      if (!f.ok()) return f.err();
      c.shards_.push_back(std::move(*f));
      it = shard_index.emplace(shard, c.shards_.size() - 1).first;
    }
    if (!c.shards_[it->second].contains(name)) {
      return error{file + ": weight_map: tensor '" + name + "' is in shard '" + shard +
                   "', but that shard has no such tensor"};
    }
    c.shard_of_.emplace(name, it->second);
  }
  return c;
}

std::vector<std::string> safetensors_checkpoint::names() const {
  std::vector<std::string> out;
  out.reserve(shard_of_.size());
  for (const auto& [name, shard] : shard_of_) out.push_back(name);
  return out;
}

bool safetensors_checkpoint::contains(std::string_view name) const {
  return shard_of_.find(name) != shard_of_.end();
}

result<tensor_view> safetensors_checkpoint::tensor(std::string_view name) const {
  const auto it = shard_of_.find(name);
  if (it == shard_of_.end())
    return error{source_ + ": no tensor '" + std::string(name) + "'"};
  return shards_[it->second].tensor(name);
}

result<tensor_view> safetensors_checkpoint::tensor(
    std::string_view name, std::span<const int64_t> expected) const {
  const auto it = shard_of_.find(name);
  if (it == shard_of_.end())
    return error{source_ + ": no tensor '" + std::string(name) + "'"};
  return shards_[it->second].tensor(name, expected);
}

result<std::vector<float>> safetensors_checkpoint::tensor_float32(
    std::string_view name, std::span<const int64_t> expected) const {
  auto view = tensor(name, expected);
  if (!view.ok()) return view.err();
  std::vector<float> out(static_cast<size_t>(view->numel()));
  const auto shard = shards_[shard_of_.find(name)->second].path();
  auto ok = to_float32(*view, out, shard + ": tensor '" + std::string(name) + "'");
  if (!ok.ok()) return ok.err();
  return out;
}

}  // namespace adarl
