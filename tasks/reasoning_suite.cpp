#include "tasks/reasoning_suite.hpp"

#include <algorithm>
#include <string>

namespace adarl {
namespace {

uint32_t draw(std::mt19937_64& rng, uint32_t lo, uint32_t hi) {  // inclusive
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

/// "sum: a+b-c...": one step per operation, the running total written each time.
task_item sum_item(std::mt19937_64& rng, uint32_t level) {
  int total = static_cast<int>(draw(rng, 1, 9));
  task_item item;
  item.prompt = "sum: " + std::to_string(total);
  for (uint32_t i = 0; i < level; ++i) {
    const int d = static_cast<int>(draw(rng, 1, 9));
    const bool minus = draw(rng, 0, 1) == 1 && total - d >= 0;
    const int next = minus ? total - d : total + d;
    const std::string op = minus ? "-" : "+";
    item.prompt += op + std::to_string(d);
    if (!item.solution.empty()) item.solution += ' ';
    item.solution += std::to_string(total) + op + std::to_string(d) + "=" + std::to_string(next);
    total = next;
  }
  item.answer = std::to_string(total);
  item.solution += " #### " + item.answer;
  return item;
}

/// "count x: letters": one step per letter, the running count written after it.
task_item count_item(std::mt19937_64& rng, uint32_t level) {
  const uint32_t n = 2 * level + 2;
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + draw(rng, 0, 3));
  const char target = static_cast<char>('a' + draw(rng, 0, 3));
  task_item item;
  item.prompt = std::string("count ") + target + ": " + s;
  int count = 0;
  for (char c : s) {
    count += c == target ? 1 : 0;
    if (!item.solution.empty()) item.solution += ' ';
    item.solution += c + std::to_string(count);
  }
  item.answer = std::to_string(count);
  item.solution += " #### " + item.answer;
  return item;
}

}  // namespace

task_item make_reasoning_item(std::mt19937_64& rng, uint32_t level) {
  level = std::clamp<uint32_t>(level, 1, 5);
  task_item item = draw(rng, 0, 1) == 0 ? sum_item(rng, level) : count_item(rng, level);
  item.verifier = "math";
  return item;
}

std::vector<task_item> generate_reasoning(const suite_request& req) {
  return generate_items("reasoning", req, make_reasoning_item);
}

}  // namespace adarl
