// Fuzzes the math answer parser (tasks/math_verifier.hpp). Input: the reference answer
// on the first line, the completion after it. Checks: candidates are non-empty views
// into the completion; parsed values are canonical and print back to themselves; a
// last-number token of at most 18 digits parses unless its denominator is zero; the
// verdict is 0 or 1 with a known reason; a boxed reference scores 1. The symbolic path
// has its own target (fuzz_math_latex.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>

#include "base/text.hpp"
#include "tasks/math_verifier.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using adarl::extraction;
using adarl::math_value;

std::string show(const math_value& v) {
  std::string s = (v.negative ? "-" : "") + std::to_string(v.num);
  if (v.den != 1) s += "/" + std::to_string(v.den);
  return s;
}

void check_value(std::string_view text) {
  const auto v = adarl::parse_math_value(text);
  if (!v) return;
  FUZZ_CHECK(v->den > 0 && std::gcd(v->num, v->den) == 1, show(*v));
  FUZZ_CHECK(v->num != 0 || !v->negative, "-0 is 0");
  const auto back = adarl::parse_math_value(show(*v));
  FUZZ_CHECK(back && *back == *v, std::string(text) + " -> " + show(*v));
}

// A last-number token fails to parse only by overflow or a zero denominator.
void check_last_number(std::string_view token) {
  const auto digits = std::count_if(token.begin(), token.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
  if (digits > 18 || adarl::parse_math_value(token)) return;
  const size_t slash = token.find('/');
  const std::string_view den =
      slash == std::string_view::npos ? "" : token.substr(slash + 1);
  const bool zero =
      !den.empty() && den.find_first_not_of("0.,") == std::string_view::npos;
  FUZZ_CHECK(zero, "unparsable last number \"" + std::string(token) + "\"");
}

void check_verdict(const adarl::verdict& v) {
  FUZZ_CHECK(v.reward == 0.f || v.reward == 1.f, v.reason);
  FUZZ_CHECK((v.reward == 1.f) == v.reason.empty(), v.reason);
  if (v.reward == 0.f)
    FUZZ_CHECK(v.reason == "no_answer" || v.reason == "unparsable" ||
                   v.reason == "wrong_value" || v.reason == "bad_reference" ||
                   v.reason == "too_complex" || v.reason == "timeout",
               v.reason);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view reference = input.substr(0, nl);
  const std::string_view completion =
      nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);

  for (const extraction how :
       {extraction::boxed, extraction::hashes, extraction::last_number}) {
    const auto candidate = adarl::extract_math_answer(completion, how);
    if (!candidate) continue;
    FUZZ_CHECK(!candidate->empty() && adarl::fuzz::is_view_into(*candidate, completion),
               std::string(*candidate));
    if (how != extraction::last_number)
      FUZZ_CHECK(adarl::trim_blanks(*candidate) == *candidate, std::string(*candidate));
    else
      check_last_number(*candidate);
    check_value(*candidate);
  }
  check_value(reference);
  check_value(completion);

  const adarl::math_verifier verifier;
  adarl::task_item item;
  item.answer = std::string(reference);
  check_verdict(verifier.verify(item, completion));
  if (adarl::parse_math_value(reference) &&
      reference.find_first_of("{}") == std::string_view::npos) {
    const auto boxed = verifier.verify(item, "so \\boxed{" + item.answer + "}");
    FUZZ_CHECK(boxed.reward == 1.f, item.answer + ": " + boxed.reason);
  }
  return 0;
}
