#include "tasks/expr_verifier.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "base/text.hpp"

namespace adarl {

namespace {

bool is_tag_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '+' || c == '-' || c == '.';
}

/// The content of a fenced block without its language tag line, when more follows.
std::string_view strip_tag(std::string_view block) {
  const size_t nl = block.find('\n');
  if (nl == std::string_view::npos) return block;
  std::string_view first = block.substr(0, nl);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  for (char c : first) {
    if (!is_tag_char(c)) return block;
  }
  const std::string_view rest = block.substr(nl + 1);
  return trim_blanks(rest).empty() ? block : rest;
}

struct fenced {
  std::string_view content;
  size_t end = 0;  ///< Offset just past the closing fence.
};

/// The last complete ``` block of `text`, pairing fences from the left.
std::optional<fenced> last_fenced_block(std::string_view text) {
  constexpr std::string_view fence = "```";
  std::optional<fenced> last;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find(fence, pos);
    if (open == std::string_view::npos) break;
    const size_t begin = open + fence.size();
    const size_t close = text.find(fence, begin);
    if (close == std::string_view::npos) break;
    last = fenced{text.substr(begin, close - begin), close + fence.size()};
    pos = close + fence.size();
  }
  return last;
}

/// Parses {"cases": [[x, y], ...]}; nullopt when malformed or empty.
std::optional<std::vector<std::pair<int64_t, int64_t>>> parse_cases(
    const std::string& tests) {
  const auto doc = nlohmann::json::parse(tests, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find("cases");
  if (it == doc.end() || !it->is_array() || it->empty()) return std::nullopt;
  auto as_int = [](const nlohmann::json& v, int64_t& out) {
    if (v.is_number_integer() && !v.is_number_unsigned()) {
      out = v.get<int64_t>();
      return true;
    }
    if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t{INT64_MAX}) {
      out = static_cast<int64_t>(v.get<uint64_t>());
      return true;
    }
    return false;
  };
  std::vector<std::pair<int64_t, int64_t>> cases;
  cases.reserve(it->size());
  for (const auto& c : *it) {
    int64_t x = 0, y = 0;
    if (!c.is_array() || c.size() != 2 || !as_int(c[0], x) || !as_int(c[1], y)) {
      return std::nullopt;
    }
    cases.emplace_back(x, y);
  }
  return cases;
}

std::string reason_of(expr_errc code) {
  switch (code) {
    case expr_errc::parse_error:
      return "parse_error";
    case expr_errc::size_limit:
      return "size_limit";
    case expr_errc::step_limit:
      return "step_limit";
    case expr_errc::div_by_zero:
    case expr_errc::overflow:
      return "runtime_error";
  }
  return "runtime_error";
}

}  // namespace

std::string_view extract_program(std::string_view completion) {
  std::string_view text = completion;
  const size_t hashes = completion.rfind("####");
  const auto block = last_fenced_block(completion);
  // The later marker wins: a "####" after the last block, or a block after the last
  // "####" (a python comment "####" inside the block does not cut the program).
  if (hashes != std::string_view::npos && (!block || hashes >= block->end)) {
    text = completion.substr(hashes + 4);
    if (const auto inner = last_fenced_block(text)) text = strip_tag(inner->content);
  } else if (block) {
    text = strip_tag(block->content);
  }
  return trim_blanks(text);
}

std::string expr_verifier::check_reference(const task_item& item) const {
  try {
    if (parse_cases(item.tests)) return "";
  } catch (...) {  // bad_alloc
  }
  return "its \"tests\" are not {\"cases\": [[x, y], ...]} with 64-bit integers "
         "(tasks/expr_verifier.hpp)";
}

verdict expr_verifier::verify(const task_item& item, std::string_view completion) const {
  try {
    const auto cases = parse_cases(item.tests);
    if (!cases) return {0.f, "bad_tests"};
    const std::string_view source = extract_program(completion);
    if (source.empty()) return {0.f, "no_program"};
    const auto program = expr_program::parse(source, limits_);
    if (!program) return {0.f, reason_of(program.err().code)};
    for (const auto& [x, y] : *cases) {
      const auto got = program->eval(x, limits_.max_steps);
      if (!got) return {0.f, reason_of(got.err().code)};
      if (*got != y) return {0.f, "wrong_output"};
    }
    return {1.f, ""};
  } catch (...) {  // only std::bad_alloc can get here; verify never throws
    return {0.f, "runtime_error"};
  }
}

}  // namespace adarl
