// Fuzzes the expression language (tasks/expr_lang.hpp) and its verifier
// (tasks/expr_verifier.hpp) on arbitrary program text. Checks: a parse error names an
// offset inside the source; an accepted program is within the limits, evaluates within
// size() steps (each node at most once), and parses the same under larger limits; the
// verifier gives 0 or 1 with a known reason, and 1 for the values the program computes.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "base/text.hpp"
#include "tasks/expr_lang.hpp"
#include "tasks/expr_verifier.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using adarl::expr_errc;
using adarl::expr_limits;
using adarl::expr_program;

void check_error(const adarl::expr_error& e, std::string_view source) {
  FUZZ_CHECK(!e.message.empty(), "an error has a message");
  if (e.code != expr_errc::parse_error) return;
  FUZZ_CHECK(adarl::fuzz::starts_with(e.message, "at offset "), e.message);
  const size_t offset = std::stoull(e.message.substr(10));
  FUZZ_CHECK(offset <= source.size(), e.message);
}

void check_program(const expr_program& p, const expr_limits& limits, int64_t x) {
  FUZZ_CHECK(p.size() >= 1 && p.size() <= limits.max_nodes, std::to_string(p.size()));
  FUZZ_CHECK(p.depth() >= 1 && p.depth() <= limits.max_depth && p.depth() <= p.size(),
             std::to_string(p.depth()));
  const auto value = p.eval(x, p.size());
  if (!value)
    FUZZ_CHECK(value.err().code == expr_errc::div_by_zero ||
                   value.err().code == expr_errc::overflow,
               value.err().message);
  const auto starved = p.eval(x, 0);
  FUZZ_CHECK(!starved && starved.err().code == expr_errc::step_limit, "0 steps");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  // Tight limits derived from the input, so that every limit is hit somewhere.
  expr_limits tight;
  tight.max_source = 1 + size % 512;
  tight.max_nodes = 1 + static_cast<uint32_t>(size % 37);
  tight.max_depth = 1 + static_cast<uint32_t>(size % 13);
  const expr_limits wide;  // the verifier's defaults

  const int64_t xs[] = {0, -1, 7, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max()};
  const auto small = expr_program::parse(source, tight);
  const auto big = expr_program::parse(source, wide);
  if (!small) check_error(small.err(), source);
  if (!big) check_error(big.err(), source);
  if (small) {
    FUZZ_CHECK(big.ok(), "larger limits accept what smaller ones do");
    FUZZ_CHECK(big->size() == small->size() && big->depth() == small->depth(),
               "same tree");
    for (int64_t x : xs) check_program(*small, tight, x);
  }
  if (!big) return 0;
  for (int64_t x : xs) check_program(*big, wide, x);

  // The verifier on the same text as a completion.
  const adarl::expr_verifier verifier;
  adarl::task_item item;
  item.tests = R"({"cases": [[7, 0]]})";
  const auto v = verifier.verify(item, source);
  FUZZ_CHECK(
      (v.reward == 1.f && v.reason.empty()) || (v.reward == 0.f && !v.reason.empty()),
      v.reason);
  const bool plain = source.find("####") == std::string_view::npos &&
                     source.find("```") == std::string_view::npos;
  const auto at7 = big->eval(7);
  if (plain && at7) {
    FUZZ_CHECK(adarl::extract_program(source) == adarl::trim_blanks(source),
               "the whole text");
    item.tests = R"({"cases": [[7, )" + std::to_string(*at7) + "]]}";
    const auto right = verifier.verify(item, source);
    FUZZ_CHECK(right.reward == 1.f, right.reason);
  }
  return 0;
}
