#include "tokenizers/bpe/pre_tokenizer.hpp"

#include <deque>
#include <nlohmann/json.hpp>

#include "tokenizers/bpe/byte_level.hpp"

namespace adarl {

namespace {

result<split_behavior> parse_behavior(const std::string& name, const std::string& where) {
  if (name == "Isolated") return split_behavior::isolated;
  if (name == "Removed") return split_behavior::removed;
  if (name == "MergedWithPrevious") return split_behavior::merged_with_previous;
  if (name == "MergedWithNext") return split_behavior::merged_with_next;
  if (name == "Contiguous") return split_behavior::contiguous;
  return error{where + ": unknown behavior \"" + name + "\""};
}

}  // namespace

result<pre_tokenizer> pre_tokenizer::parse(const nlohmann::json& j,
                                           std::string_view where) {
  const std::string at(where);
  std::vector<const nlohmann::json*> list;
  if (j.is_object() && j.value("type", "") == "Sequence" && j.contains("pretokenizers") &&
      j["pretokenizers"].is_array()) {
    for (const auto& p : j["pretokenizers"]) list.push_back(&p);
  } else {
    list.push_back(&j);
  }
  pre_tokenizer t;
  bool byte_level_seen = false;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& p = *list[i];
    const std::string here = list.size() > 1 ? at + "[" + std::to_string(i) + "]" : at;
    const std::string type = p.is_object() ? p.value("type", "") : "";
    if (byte_level_seen) {
      return error{here + ": a " + type + " step after ByteLevel is not supported"};
    }
    if (type == "Split") {
      const auto& pattern = p.contains("pattern") ? p["pattern"] : nlohmann::json();
      const bool is_regex = pattern.is_object() && pattern.contains("Regex");
      const bool is_string = pattern.is_object() && pattern.contains("String");
      if (!(is_regex || is_string) || !pattern.begin()->is_string()) {
        return error{here + ": pattern: expected {\"Regex\": ...} or {\"String\": ...}"};
      }
      auto splitter = regex_splitter::compile(pattern.begin()->get<std::string>(),
                                              /*literal=*/is_string, here + ": pattern");
      if (!splitter.ok()) return splitter.err();
      auto behavior = parse_behavior(p.value("behavior", ""), here);
      if (!behavior.ok()) return behavior.err();
      t.steps_.push_back({std::move(*splitter), *behavior, p.value("invert", false)});
    } else if (type == "ByteLevel") {
      byte_level_seen = true;
      // The reference's defaults when a key is absent: both true.
      t.add_prefix_space_ = p.value("add_prefix_space", true);
      t.prefix_step_ = t.steps_.size();
      if (p.value("use_regex", true)) {
        auto gpt2 = regex_splitter::compile(gpt2_pattern, /*literal=*/false, here);
        if (!gpt2.ok()) return gpt2.err();
        t.steps_.push_back({std::move(*gpt2), split_behavior::isolated, false});
      }
    } else {
      return error{here + ": unsupported type \"" + type +
                   "\" (expected Split, ByteLevel or a Sequence of them)"};
    }
  }
  if (!byte_level_seen) {
    return error{at + ": no ByteLevel step: not a byte-level BPE tokenizer"};
  }
  return t;
}

void pre_tokenizer::split(std::string_view text, std::vector<std::string>& words) const {
  std::vector<std::string_view> pieces{text}, next;
  std::deque<std::string> prefixed;  // stable storage for pieces given a leading space
  for (size_t i = 0; i <= steps_.size(); ++i) {
    if (i == prefix_step_ && add_prefix_space_) {
      for (auto& p : pieces) {
        if (!p.empty() && p.front() == ' ') continue;
        prefixed.push_back(" " + std::string(p));
        p = prefixed.back();
      }
    }
    if (i == steps_.size()) break;
    next.clear();
    for (auto p : pieces)
      steps_[i].splitter.split(p, steps_[i].behavior, steps_[i].invert, next);
    pieces.swap(next);
  }
  for (auto p : pieces) {
    std::string w;
    w.reserve(p.size() * 2);
    byte_level::encode(p, w);
    words.push_back(std::move(w));
  }
}

}  // namespace adarl
