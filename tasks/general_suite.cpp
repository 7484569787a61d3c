#include "tasks/general_suite.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace adarl {
namespace {

/// The fixed words of "first word" tasks: three lowercase letters each, all distinct.
constexpr std::array<std::string_view, 20> words = {
    "ant", "bee", "box", "cat", "cup", "dog", "fox", "hat", "ice", "jam",
    "key", "kit", "log", "map", "net", "oak", "owl", "pen", "red", "sun"};

enum class kind { reverse, sort, dedupe, count, upper, lower, first_word };
constexpr uint32_t kinds = 7;

uint32_t draw(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {  // inclusive
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

/// `n` letters from the first `alphabet` lowercase letters.
std::string letters(std::mt19937_64& rng, uint32_t n, uint32_t alphabet) {
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + draw(rng, 0, alphabet - 1));
  return s;
}

std::string to_upper(std::string s) {
  for (char& c : s) c = static_cast<char>(c - 'a' + 'A');
  return s;
}

std::string dedupe(const std::string& s) {
  std::string out;
  for (char c : s)
    if (out.find(c) == std::string::npos) out += c;
  return out;
}

task_item first_word_item(std::mt19937_64& rng, uint32_t level) {
  std::array<uint32_t, words.size()> order{};
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  // A partial Fisher-Yates shuffle picks level + 1 distinct words.
  const uint32_t n = level + 1;
  for (uint32_t i = 0; i < n; ++i)
    std::swap(order[i], order[draw(rng, i, static_cast<uint32_t>(order.size()) - 1)]);
  task_item item;
  item.prompt = "first word:";
  std::string_view best = words[order[0]];
  for (uint32_t i = 0; i < n; ++i) {
    item.prompt += ' ';
    item.prompt += words[order[i]];
    best = std::min(best, words[order[i]]);
  }
  item.answer = std::string(best);
  item.verifier = "general_ci";
  return item;
}

/// A letter-string task of kind `k` (not first_word) and `length` letters.
task_item letters_item(std::mt19937_64& rng, kind k, uint32_t level, uint32_t length) {
  // dedupe and count draw from fewer letters so that repeats are common.
  const bool small = k == kind::dedupe || k == kind::count;
  const std::string s = letters(rng, length, small ? 4 + level : 26);
  task_item item;
  item.verifier = "general";
  switch (k) {
    case kind::reverse:
      item.prompt = "reverse: " + s;
      item.answer.assign(s.rbegin(), s.rend());
      break;
    case kind::sort:
      item.prompt = "sort: " + s;
      item.answer = s;
      std::sort(item.answer.begin(), item.answer.end());
      break;
    case kind::dedupe:
      item.prompt = "dedupe: " + s;
      item.answer = dedupe(s);
      break;
    case kind::count: {
      // Mostly a letter of the string; one time in eight any letter (often absent).
      const char c = draw(rng, 0, 7) == 0 ? static_cast<char>('a' + draw(rng, 0, 25))
                                          : s[draw(rng, 0, length - 1)];
      item.prompt = std::string("count ") + c + ": " + s;
      item.answer = std::to_string(std::count(s.begin(), s.end(), c));
      break;
    }
    case kind::upper:
      item.prompt = "upper: " + s;
      item.answer = to_upper(s);
      break;
    case kind::lower:
      item.prompt = "lower: " + to_upper(s);
      item.answer = s;
      break;
    case kind::first_word:
      break;  // not a letter-string task; see first_word_item
  }
  return item;
}

}  // namespace

task_item make_general_item(std::mt19937_64& rng, uint32_t level) {
  level = std::clamp<uint32_t>(level, 1, 5);
  const auto k = static_cast<kind>(draw(rng, 0, kinds - 1));
  if (k == kind::first_word) return first_word_item(rng, level);
  const uint32_t length = draw(rng, 2 * level + 1, 2 * level + 3);
  return letters_item(rng, k, level, length);
}

std::vector<task_item> generate_general(const suite_request& req) {
  return generate_items("general", req, make_general_item);
}

}  // namespace adarl
