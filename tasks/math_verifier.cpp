#include "tasks/math_verifier.hpp"

#include <chrono>
#include <utility>

#include "base/text.hpp"
#include "math/math_equivalence.hpp"
#include "math/math_latex_parser.hpp"
#include "math/math_normalize.hpp"
#include "math/math_scalar_engine.hpp"

namespace adarl {
namespace {

/// One side read: a tree, a text answer (its key), or why neither.
struct read_side {
  math_parse_status status = math_parse_status::unparsable;
  bool text = false;
  math_ast ast;
  std::string key;  ///< math_text_key of the normalised side (every side has one).
};

constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A letter outside command names ("\frac{1}{" has none: it is broken math, not text).
constexpr bool has_letter(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      while (i + 1 < s.size() && is_alpha(s[i + 1])) ++i;
    } else if (is_alpha(s[i])) {
      return true;
    }
  }
  return false;
}

// A side that does not parse but holds letters is a text answer ("Monday", "New York").
read_side read(const std::string& normalized, const math_limits& limits) {
  math_parse_result parsed = parse_math_latex(normalized, limits);
  read_side out{parsed.status, false, std::move(parsed.ast), math_text_key(normalized)};
  if (out.status == math_parse_status::ok) {
    out.text = out.ast.top().kind == math_kind::text;
  } else if (out.status == math_parse_status::unparsable && has_letter(normalized)) {
    out.status = math_parse_status::ok;
    out.text = true;
  }
  return out;
}

bool digit_in(std::string_view s) {
  for (char c : s) {
    if (c >= '0' && c <= '9') return true;
  }
  return false;
}

// A text reference that is a sentence rather than an answer ("She has 5 apples left").
bool reads_as_solution(const read_side& side, std::string_view normalized,
                       std::size_t max_words) {
  if (!side.text) return false;
  const std::size_t words = math_word_count(normalized);
  return words > max_words || (words >= 3 && digit_in(normalized));
}

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The candidate with the digits and decimal comma just before it in the completion
// ("2,74" where last_number found "74"), else the candidate itself.
std::string_view with_comma_before(std::string_view completion, std::string_view candidate) {
  if (candidate.data() < completion.data() ||
      candidate.data() + candidate.size() > completion.data() + completion.size())
    return candidate;
  const size_t at = static_cast<size_t>(candidate.data() - completion.data());
  if (at < 2 || completion[at - 1] != ',' || !is_digit(completion[at - 2])) return candidate;
  size_t start = at - 1;
  while (start > 0 && is_digit(completion[start - 1])) --start;
  if (start > 0 && (completion[start - 1] == ',' || completion[start - 1] == '.' ||
                    is_alpha(completion[start - 1])))
    return candidate;  // "1,234,56": a broken grouping, not a decimal
  return completion.substr(start, at + candidate.size() - start);
}

verdict reward() {
  return {1.f, ""};
}
verdict zero(const char* reason) {
  return {0.f, reason};
}

verdict from_status(math_status s) {
  switch (s) {
    case math_status::equal: return reward();
    case math_status::different: return zero("wrong_value");
    case math_status::bad_reference: return zero("bad_reference");
    case math_status::bad_answer: return zero("unparsable");
    case math_status::too_complex: return zero("too_complex");
    case math_status::timeout: return zero("timeout");
  }
  return zero("internal_error");
}

// Why a reference's status makes it unusable ("" when it does not).
std::string unusable(math_status s) {
  switch (s) {
    case math_status::equal: return "";
    case math_status::bad_reference:
    case math_status::bad_answer: return "it has no value (a division by zero, log 0, a "
                                         "tuple inside a sum) or is past the verifier's "
                                         "limits (math_limits)";
    case math_status::too_complex: return "it is past the verifier's limits (math_limits)";
    case math_status::timeout: return "comparing it takes longer than the time budget";
    case math_status::different: return "the verifier cannot establish that it equals itself";
  }
  return "unknown";
}

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out.append(s.substr(0, 60));
  if (s.size() > 60) out += "...";
  return out + "\"";
}

}  // namespace

math_verifier_config math_verifier_config::exact_rational_only() {
  math_verifier_config c;
  c.order = {extraction::boxed, extraction::hashes, extraction::last_number};
  c.mode = math_mode::exact_rational;
  return c;
}

math_verifier::math_verifier(math_verifier_config cfg) : cfg_(std::move(cfg)) {}

std::string_view math_verifier::reference_text(std::string_view answer) const {
  if (cfg_.mode == math_mode::exact_rational || parse_math_value(answer)) return answer;
  return extract_reference(answer, cfg_.order);
}

verdict math_verifier::verify(const task_item& item, std::string_view completion) const {
  try {
    const auto candidate = extract_first(completion, cfg_.order);
    if (!candidate) return zero("no_answer");
    const std::string_view reference = reference_text(item.answer);
    const auto gold = parse_math_value(reference);
    if (cfg_.mode == math_mode::exact_rational) {
      if (!gold) return zero("bad_reference");
      const auto got = parse_math_value(*candidate);
      if (!got) return zero("unparsable");
      return *got == *gold ? reward() : zero("wrong_value");
    }
    // The fast path: two plain numbers, exact rationals, no allocation. A decimal comma
    // ("1000,99", "0,111") is read as such against a side written with a decimal point.
    std::optional<math_value> ref_value = gold;
    std::optional<math_value> got = gold ? parse_math_value(*candidate) : std::nullopt;
    if (gold) {
      const std::string_view whole = with_comma_before(completion, *candidate);
      if ((!got || whole.size() != candidate->size()) && decimal_places(reference) > 0)
        got = parse_decimal_comma(whole);
    }
    if (!gold && decimal_places(*candidate) > 0 && (got = parse_math_value(*candidate)))
      ref_value = parse_decimal_comma(reference);
    if (ref_value && got) {
      if (*got == *ref_value) return reward();
      // A fraction against a decimal of six or more places: equal at six places, as the
      // reference verifier rounds ("\frac{1}{12}" and "0.0833333333333333").
      const size_t ref_places = decimal_places(reference);
      const size_t got_places = decimal_places(*candidate);
      const bool rounded = (got_places >= 6 && ref_places == 0) ||
                           (ref_places >= 6 && got_places == 0);
      if (rounded && equal_at_places(*ref_value, *got, 6)) return reward();
      return zero("wrong_value");
    }
    return verify_symbolic(reference, *candidate);
  } catch (...) {  // bad_alloc; nothing else is known to escape
    return zero("internal_error");
  }
}

verdict math_verifier::verify_symbolic(std::string_view reference,
                                       std::string_view candidate) const {
  const auto start = std::chrono::steady_clock::now();
  const auto cpu_start = math_thread_cpu_time();
  const math_limits& limits = cfg_.limits;
  if (reference.size() > limits.max_answer_chars) return zero("bad_reference");
  if (candidate.size() > limits.max_answer_chars) return zero("too_complex");
  const std::string ref_text = normalize_math_answer(reference);
  const std::string got_text = normalize_math_answer(candidate);
  // A reference the reader finds no value in ("\zzz", "\frac{1}{0}") still matches its own
  // spelling, as the reference verifier's comparison of strings does.
  const bool same_text = !got_text.empty() && got_text == ref_text;
  const read_side ref = read(ref_text, limits);
  if (ref.status == math_parse_status::unparsable && same_text) return reward();
  if (ref.status != math_parse_status::ok ||
      reads_as_solution(ref, ref_text, cfg_.max_text_words))
    return zero("bad_reference");
  if (got_text.empty()) return zero("no_answer");
  const read_side got = read(got_text, limits);
  if (got.status == math_parse_status::too_complex) return zero("too_complex");
  if (got.status != math_parse_status::ok) return zero("unparsable");
  if (ref.text || got.text) {
    if (ref.key == got.key) return reward();
    return zero(got.text && !ref.text ? "unparsable" : "wrong_value");
  }
  const math_compare_settings settings{limits, cfg_.relative_tolerance, start + limits.budget,
                                       cpu_start, limits.budget};
  const math_status status = compare_math_answers(ref.ast, got.ast, settings);
  if (status == math_status::bad_reference && same_text) return reward();
  return from_status(status);
}

std::string math_verifier::check_reference(const task_item& item) const {
  try {
    const std::string_view reference = reference_text(item.answer);
    if (trim_blanks(reference).empty()) return "the reference answer is empty";
    if (parse_math_value(reference)) return "";
    if (cfg_.mode == math_mode::exact_rational)
      return "the reference " + quoted(reference) + " is not a plain number (exact_rational mode)";
    if (reference.size() > cfg_.limits.max_answer_chars)
      return "the reference answer is longer than " +
             std::to_string(cfg_.limits.max_answer_chars) + " characters after extraction";
    const std::string text = normalize_math_answer(reference);
    const read_side ref = read(text, cfg_.limits);
    if (ref.status == math_parse_status::too_complex)
      return "the reference " + quoted(reference) + " is past the verifier's limits";
    if (ref.status != math_parse_status::ok)
      return "the reference " + quoted(reference) + " cannot be read as math";
    if (reads_as_solution(ref, text, cfg_.max_text_words))
      return "the reference reads as prose, not an answer (expected a bare answer, or a "
             "solution with \\boxed{}, \"####\" or \"The answer is\"): " + quoted(reference);
    if (ref.text) return "";
    const math_compare_settings settings{cfg_.limits, cfg_.relative_tolerance,
                                         std::chrono::steady_clock::now() + cfg_.limits.budget,
                                         math_thread_cpu_time(), cfg_.limits.budget};
    const std::string why = unusable(compare_math_answers(ref.ast, ref.ast, settings));
    return why.empty() ? "" : "the reference " + quoted(reference) + ": " + why;
  } catch (...) {
    return "the reference could not be checked (internal error)";
  }
}

}  // namespace adarl
