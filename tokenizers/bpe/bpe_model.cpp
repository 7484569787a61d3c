#include "tokenizers/bpe/bpe_model.hpp"

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <queue>

#include "tokenizers/bpe/byte_level.hpp"

namespace adarl {

namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
         static_cast<uint32_t>(right);
}

/// A merge candidate: lowest rank first, then leftmost (the reference's order).
struct candidate {
  int32_t rank;
  int32_t pos;
  int32_t id;
  bool operator>(const candidate& o) const {
    return rank != o.rank ? rank > o.rank : pos > o.pos;
  }
};

/// A symbol of the word being merged: a doubly linked list over the characters.
struct symbol {
  int32_t id;
  int32_t prev;
  int32_t next;
  bool alive;
};

bool is_empty_string_or_null(const nlohmann::json& j, const char* key) {
  return !j.contains(key) || j[key].is_null() ||
         (j[key].is_string() && j[key].get<std::string>().empty());
}

}  // namespace

bpe_model::bpe_model(bpe_model&& o) noexcept
    : vocab_(std::move(o.vocab_)),
      tokens_(std::move(o.tokens_)),
      merges_(std::move(o.merges_)),
      unk_(o.unk_),
      fuse_unk_(o.fuse_unk_),
      byte_fallback_(o.byte_fallback_),
      ignore_merges_(o.ignore_merges_),
      cache_(std::move(o.cache_)) {
  std::copy(std::begin(o.byte_ids_), std::end(o.byte_ids_), std::begin(byte_ids_));
}

result<bpe_model> bpe_model::parse(const nlohmann::json& j, std::string_view where) {
  const std::string at(where);
  if (!j.is_object() || j.value("type", "BPE") != "BPE") {
    return error{at + ": expected a model of type BPE"};
  }
  if (!j.contains("vocab") || !j["vocab"].is_object())
    return error{at + ": no vocab object"};
  if (j.contains("dropout") && !j["dropout"].is_null() &&
      j["dropout"].get<double>() != 0.0) {
    return error{at + ": dropout is not supported (it makes encoding random)"};
  }
  if (!is_empty_string_or_null(j, "continuing_subword_prefix") ||
      !is_empty_string_or_null(j, "end_of_word_suffix")) {
    return error{at +
                 ": continuing_subword_prefix and end_of_word_suffix are not supported "
                 "(byte-level models leave them empty)"};
  }
  bpe_model m;
  for (const auto& [token, id_json] : j["vocab"].items()) {
    if (!id_json.is_number_integer() || id_json.get<int64_t>() < 0 ||
        id_json.get<int64_t>() > (1 << 30)) {
      return error{at + ": vocab: token \"" + token + "\": expected a non-negative id"};
    }
    const auto id = id_json.get<int32_t>();
    m.vocab_.emplace(token, id);
    if (static_cast<size_t>(id) >= m.tokens_.size()) m.tokens_.resize(id + 1);
    m.tokens_[id] = token;
  }
  const auto& merges = j.contains("merges") ? j["merges"] : nlohmann::json::array();
  if (!merges.is_array()) return error{at + ": merges is not an array"};
  m.merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& entry = merges[rank];
    std::string left, right;
    if (entry.is_string()) {  // "a b": exactly one space, as the reference requires
      const auto s = entry.get<std::string>();
      const auto space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        return error{at + ": merges[" + std::to_string(rank) + "]: \"" + s +
                     "\" is not two tokens separated by one space"};
      }
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() &&
               entry[1].is_string()) {
      left = entry[0].get<std::string>();
      right = entry[1].get<std::string>();
    } else {
      return error{at + ": merges[" + std::to_string(rank) +
                   "]: expected \"a b\" or [a, b]"};
    }
    const auto l = m.token_to_id(left), r = m.token_to_id(right),
               merged = m.token_to_id(left + right);
    if (!l || !r || !merged) {
      const std::string missing = !l ? left : !r ? right : left + right;
      return error{at + ": merges[" + std::to_string(rank) + "]: \"" + missing +
                   "\" is not in the vocabulary"};
    }
    // A repeated pair takes its last rank, as the reference's map does.
    m.merges_.insert_or_assign(pair_key(*l, *r),
                               merge{static_cast<int32_t>(rank), *merged});
  }
  m.byte_fallback_ = j.value("byte_fallback", false);
  m.ignore_merges_ = j.value("ignore_merges", false);
  m.fuse_unk_ = j.value("fuse_unk", false);
  if (j.contains("unk_token") && j["unk_token"].is_string()) {
    const auto unk = j["unk_token"].get<std::string>();
    m.unk_ = m.token_to_id(unk);
    if (!m.unk_)
      return error{at + ": unk_token \"" + unk + "\" is not in the vocabulary"};
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    m.byte_ids_[b] = m.token_to_id(name);
  }
  return m;
}

std::optional<int32_t> bpe_model::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* bpe_model::id_to_token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= tokens_.size() || tokens_[id].empty())
    return nullptr;
  return &tokens_[id];
}

void bpe_model::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.size() <= max_cached_length) {
    std::shared_lock lock(cache_mutex_);
    const auto it = cache_.find(word);
    if (it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t start = out.size();
  merge_word(word, out);
  if (word.size() <= max_cached_length) {
    std::unique_lock lock(cache_mutex_);
    if (cache_.size() < max_cache_entries) {
      cache_.emplace(std::string(word),
                     std::vector<int32_t>(out.begin() + start, out.end()));
    }
  }
}

void bpe_model::merge_word(std::string_view word, std::vector<int32_t>& out) const {
  if (ignore_merges_) {
    if (auto id = token_to_id(word)) {
      out.push_back(*id);
      return;
    }
  }
  std::vector<symbol> symbols;
  symbols.reserve(word.size());
  bool previous_unk = false;
  for (size_t i = 0; i < word.size();) {
    const size_t n = std::min<size_t>(utf8_length(static_cast<unsigned char>(word[i])),
                                      word.size() - i);
    const auto ch = word.substr(i, n);
    i += n;
    const auto add = [&](int32_t id) {
      const auto k = static_cast<int32_t>(symbols.size());
      symbols.push_back({id, k - 1, k + 1, true});
    };
    if (auto id = token_to_id(ch)) {
      add(*id);
      previous_unk = false;
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (unsigned char b : ch) all = all && byte_ids_[b].has_value();
      if (all) {
        for (unsigned char b : ch) add(*byte_ids_[b]);
        previous_unk = false;
        continue;
      }
    }
    if (unk_) {
      if (!(fuse_unk_ && previous_unk)) add(*unk_);
      previous_unk = true;
    }
  }
  if (symbols.empty()) return;
  symbols.back().next = -1;

  std::priority_queue<candidate, std::vector<candidate>, std::greater<>> queue;
  const auto push = [&](int32_t pos) {
    const int32_t next = symbols[pos].next;
    if (next < 0) return;
    const auto it = merges_.find(pair_key(symbols[pos].id, symbols[next].id));
    if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.id});
  };
  for (int32_t k = 0; k + 1 < static_cast<int32_t>(symbols.size()); ++k) push(k);
  while (!queue.empty()) {
    const candidate c = queue.top();
    queue.pop();
    symbol& left = symbols[c.pos];
    // Skip stale candidates: the left symbol was absorbed, or its right neighbour or
    // its own id changed since the candidate was queued.
    if (!left.alive || left.next < 0) continue;
    symbol& right = symbols[left.next];
    const auto it = merges_.find(pair_key(left.id, right.id));
    if (it == merges_.end() || it->second.id != c.id || it->second.rank != c.rank)
      continue;
    left.id = c.id;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = c.pos;
    if (left.prev >= 0) push(left.prev);
    push(c.pos);
  }
  for (int32_t k = 0; k >= 0; k = symbols[k].next) out.push_back(symbols[k].id);
}

}  // namespace adarl
