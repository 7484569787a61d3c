#include "math/math_extract.hpp"

#include <array>

#include "base/text.hpp"

namespace adarl {
namespace {

// U+2212 MINUS SIGN, as UTF-8.
constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";
constexpr std::string_view kHashes = "####";

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
constexpr char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// The characters a number token may contain after its sign.
constexpr bool in_number_run(char c) {
  return is_digit(c) || c == ',' || c == '.' || c == '/';
}

// End of the unsigned number token starting at `i` (a digit, or '.' and a digit):
// digits, thousands groups, decimals, then optionally '/' and a second such number.
size_t number_token_end(std::string_view s, size_t i, bool allow_slash = true) {
  const size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  const size_t lead = i - start;
  if (lead >= 1 && lead <= 3 && s[start] != '0') {
    while (i + 3 < s.size() && s[i] == ',' && is_digit(s[i + 1]) && is_digit(s[i + 2]) &&
           is_digit(s[i + 3]) && (i + 4 == s.size() || !is_digit(s[i + 4]))) {
      i += 4;
    }
  }
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    for (++i; i < s.size() && is_digit(s[i]);) ++i;
  }
  if (allow_slash && i + 1 < s.size() && s[i] == '/' &&
      (is_digit(s[i + 1]) ||
       (s[i + 1] == '.' && i + 2 < s.size() && is_digit(s[i + 2])))) {
    i = number_token_end(s, i + 1, /*allow_slash=*/false);
  }
  return i;
}

// Where the token starting at `i` really starts: before a sign that is unary (not
// preceded by something that could be its left operand).
size_t with_sign(std::string_view s, size_t i) {
  size_t sign_at = i;
  if (i >= 1 && (s[i - 1] == '-' || s[i - 1] == '+'))
    sign_at = i - 1;
  else if (i >= 3 && s.substr(i - 3, 3) == kUnicodeMinus)
    sign_at = i - 3;
  if (sign_at == i || sign_at == 0) return sign_at;
  const char before = s[sign_at - 1];
  const bool binary = is_digit(before) || is_alpha(before) || before == ')' ||
                      before == ']' || before == '}' || before == '.' || before == '_';
  return binary ? i : sign_at;
}

// The last valid number token within the run [begin, end) of number characters.
std::optional<std::string_view> last_token_in_run(std::string_view s, size_t begin,
                                                  size_t end) {
  std::optional<std::string_view> last;
  for (size_t i = begin; i < end;) {
    const bool starts =
        is_digit(s[i]) || (s[i] == '.' && i + 1 < end && is_digit(s[i + 1]));
    if (!starts) {
      ++i;
      continue;
    }
    const size_t stop = number_token_end(s, i);
    const bool in_word = i > 0 && (is_alpha(s[i - 1]) || s[i - 1] == '_');
    if (!in_word) {
      const size_t from = with_sign(s, i);
      last = s.substr(from, stop - from);
    }
    i = stop;
  }
  return last;
}

// Scans backwards run by run (a run: a maximal stretch of number characters holding a
// digit), so a long completion costs only as much as its tail up to the last number.
std::optional<std::string_view> extract_last_number(std::string_view s) {
  size_t limit = s.size();
  while (limit > 0) {
    size_t digit_end = limit;
    while (digit_end > 0 && !is_digit(s[digit_end - 1])) --digit_end;
    if (digit_end == 0) return std::nullopt;
    size_t run_end = digit_end;
    while (run_end < s.size() && in_number_run(s[run_end])) ++run_end;
    size_t run_begin = digit_end - 1;
    while (run_begin > 0 && in_number_run(s[run_begin - 1])) --run_begin;
    if (auto token = last_token_in_run(s, run_begin, run_end)) return token;
    limit = run_begin;
  }
  return std::nullopt;
}

// The content of the brace group opening at `open` (s[open] == '{'), trimmed; nullopt
// when it never closes or holds only blanks.
std::optional<std::string_view> group_at(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;  // "\{" and "\}" do not nest
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) {
      const std::string_view content = trim_blanks(s.substr(open + 1, i - open - 1));
      if (content.empty()) return std::nullopt;
      return content;
    }
  }
  return std::nullopt;
}

// The argument of the box command ending at `after`: a brace group, or one token
// ("\boxed 5": up to a blank or '$').
std::optional<std::string_view> box_argument(std::string_view s, size_t after) {
  size_t i = after;
  while (i < s.size() && is_blank(s[i])) ++i;
  if (i < s.size() && s[i] == '{') return group_at(s, i);
  if (i == after || i == s.size()) return std::nullopt;  // "\boxeds" is another command
  size_t end = i;
  while (end < s.size() && !is_blank(s[end]) && s[end] != '$') ++end;
  if (end == i) return std::nullopt;
  return s.substr(i, end - i);
}

// Where the box command before `limit` starts (the later of "\boxed" and "\fbox"), and
// its length; npos when there is none.
std::pair<size_t, size_t> last_box_command(std::string_view s, size_t limit) {
  size_t best = std::string_view::npos;
  size_t length = 0;
  const std::string_view head = s.substr(0, limit);
  for (std::string_view command : {std::string_view("\\boxed"), std::string_view("\\fbox")}) {
    const size_t at = head.rfind(command);
    if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) {
      best = at;
      length = command.size();
    }
  }
  return {best, length};
}

// Index just after the brace group of the box command at `at` (length `length`); npos
// when its argument is not a closed brace group.
size_t box_group_end(std::string_view s, size_t at, size_t length) {
  size_t i = at + length;
  while (i < s.size() && is_blank(s[i])) ++i;
  if (i >= s.size() || s[i] != '{' || !group_at(s, i)) return std::string_view::npos;
  const std::string_view content = *group_at(s, i);
  // group_at trims the content: find the closing brace after it.
  size_t close = static_cast<size_t>(content.data() - s.data()) + content.size();
  while (close < s.size() && s[close] != '}') ++close;
  return close + 1;
}

std::optional<std::string_view> extract_boxed(std::string_view s) {
  const auto [best, length] = last_box_command(s, s.size());
  if (best == std::string_view::npos) return std::nullopt;
  const auto last = box_argument(s, best + length);
  if (!last) return last;
  // Earlier boxes that list the parts of the same answer.
  size_t first = best;
  for (int joined = 0; joined < 64; ++joined) {
    const auto [at, len] = last_box_command(s, first);
    if (at == std::string_view::npos) break;
    const size_t end = box_group_end(s, at, len);
    if (end == std::string_view::npos || end > first || !boxes_joinable(s.substr(end, first - end)))
      break;
    first = at;
  }
  if (first == best) return last;
  const size_t stop = box_group_end(s, best, length);
  if (stop == std::string_view::npos) return last;
  return s.substr(first, stop - first);
}

std::optional<std::string_view> extract_hashes(std::string_view s) {
  const size_t at = s.rfind(kHashes);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(at + kHashes.size());
  rest = rest.substr(0, rest.find('\n'));
  rest = trim_blanks(rest);
  if (rest.empty()) return std::nullopt;
  return rest;
}

// True when s[at...] starts with `word` in any case.
bool starts_with_nocase(std::string_view s, size_t at, std::string_view word) {
  if (at + word.size() > s.size()) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (lower(s[at + k]) != word[k]) return false;
  }
  return true;
}

// Where the answer starts after the last "answer is" / "answer:"; npos when none.
size_t after_answer_marker(std::string_view s) {
  constexpr std::string_view kAnswer = "answer";
  for (size_t at = s.size(); at-- > 0;) {
    if (!starts_with_nocase(s, at, kAnswer)) continue;
    size_t i = at + kAnswer.size();
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i < s.size() && s[i] == ':') return i + 1;
    if (starts_with_nocase(s, i, "is") && (i + 2 == s.size() || !is_alpha(s[i + 2])))
      return i + 2;
  }
  return std::string_view::npos;
}

// Skips blanks, ':' and filler words that may sit between the marker and the answer.
size_t skip_fillers(std::string_view s, size_t i) {
  static constexpr std::array<std::string_view, 8> kFillers = {
      "therefore", "thus", "then", "simply", "just", "exactly", "clearly", "indeed"};
  for (bool again = true; again;) {
    again = false;
    while (i < s.size() && (is_blank(s[i]) || s[i] == ':')) ++i;
    for (std::string_view w : kFillers) {
      const size_t end = i + w.size();
      if (starts_with_nocase(s, i, w) && (end == s.size() || !is_alpha(s[end]))) {
        i = end;
        again = true;
      }
    }
  }
  return i;
}

// The content of the math span opening at `i` with `open` and closing with `close`.
std::optional<std::string_view> span_at(std::string_view s, size_t i, std::string_view open,
                                        std::string_view close) {
  const size_t start = i + open.size();
  size_t end = s.find(close, start);
  // A '$' written "\$" inside does not close the span.
  while (close == "$" && end != std::string_view::npos && end > 0 && s[end - 1] == '\\')
    end = s.find(close, end + 1);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view content = trim_blanks(s.substr(start, end - start));
  if (content.empty()) return std::nullopt;
  return content;
}

// A ',' that ends the answer: one followed by a word of two or more lower-case letters
// other than "and"/"or" ("3, not 4", "\frac12, which ..."; "1, 2, and 3" goes on).
bool comma_before_words(std::string_view s, size_t at) {
  if (s[at] != ',') return false;
  size_t i = at + 1;
  while (i < s.size() && is_blank(s[i])) ++i;
  size_t end = i;
  while (end < s.size() && s[end] >= 'a' && s[end] <= 'z') ++end;
  const std::string_view word = s.substr(i, end - i);
  return word.size() >= 2 && word != "and" && word != "or" &&
         (end == s.size() || !is_alpha(s[end]));
}

// The last math span of `s`, and whether it was an inline "$...$" one.
struct math_span {
  std::optional<std::string_view> content;
  bool inline_dollars = false;
};

math_span last_math_span(std::string_view s);

// The answer inside a sentence after "Final Answer:" ("The largest $n$ is 34", "She
// walked 7 miles in total"): what follows its last word "is" (a math span there whole),
// else its last math span that is no prose, else its last number; nullopt when none.
std::optional<std::string_view> answer_in_sentence(std::string_view sentence) {
  for (size_t at = sentence.size(); at-- > 1;) {
    if (!starts_with_nocase(sentence, at, "is") || !is_blank(sentence[at - 1]) ||
        (at + 2 < sentence.size() && !is_blank(sentence[at + 2])))
      continue;
    const std::string_view rest = trim_blanks(sentence.substr(at + 2));
    if (rest.empty()) break;
    if (rest.starts_with("$") || rest.starts_with("\\(")) {
      const math_span span = last_math_span(rest);
      if (span.content && !reads_as_prose(*span.content)) return span.content;
      break;
    }
    if (!reads_as_prose(rest)) return rest;
    break;
  }
  const math_span span = last_math_span(sentence);
  if (span.content && !reads_as_prose(*span.content)) return span.content;
  return extract_last_number(sentence);
}

std::optional<std::string_view> extract_answer_is(std::string_view s) {
  const size_t marker = after_answer_marker(s);
  if (marker == std::string_view::npos) return std::nullopt;
  const size_t i = skip_fillers(s, marker);
  const std::string_view rest = s.substr(i);
  if (rest.starts_with("$$")) return span_at(s, i, "$$", "$$");
  if (rest.starts_with("$")) return span_at(s, i, "$", "$");
  if (rest.starts_with("\\(")) return span_at(s, i, "\\(", "\\)");
  if (rest.starts_with("\\[")) return span_at(s, i, "\\[", "\\]");
  if (rest.starts_with("\\boxed")) return box_argument(s, i + 6);
  if (rest.starts_with("\\fbox")) return box_argument(s, i + 5);
  size_t end = i;
  while (end < s.size() && s[end] != '\n' &&
         !(s[end] == '.' && (end + 1 == s.size() || is_blank(s[end + 1]))) &&
         !comma_before_words(s, end)) {
    ++end;
  }
  const std::string_view answer = trim_blanks(s.substr(i, end - i));
  if (answer.empty()) return std::nullopt;
  if (s[marker - 1] == ':' && reads_as_prose(answer)) {  // "Final Answer: The total is 42."
    if (auto inside = answer_in_sentence(answer)) return inside;
  }
  return answer;
}


math_span last_math_span(std::string_view s) {
  math_span last;
  for (size_t i = 0; i < s.size();) {
    const std::string_view rest = s.substr(i);
    std::string_view open, close;
    if (rest.starts_with("\\(")) {
      open = "\\(", close = "\\)";
    } else if (rest.starts_with("\\[")) {
      open = "\\[", close = "\\]";
    } else if (rest.starts_with("$$")) {
      open = "$$", close = "$$";
    } else if (rest.starts_with("$")) {
      open = "$", close = "$";
    } else {
      i += s[i] == '\\' ? 2 : 1;  // "\$" and "\\" are not delimiters
      continue;
    }
    const size_t start = i + open.size();
    size_t end = s.find(close, start);
    while (close == "$" && end != std::string_view::npos && s[end - 1] == '\\')
      end = s.find(close, end + 1);
    if (end == std::string_view::npos) break;  // unclosed: a price, or cut off
    last = {span_at(s, i, open, close), open == "$"};
    i = end + close.size();
  }
  return last;
}

std::optional<std::string_view> extract_math_delimiters(std::string_view s) {
  const math_span last = last_math_span(s);
  if (!last.content) return std::nullopt;
  if (last.inline_dollars && reads_as_prose(*last.content)) return std::nullopt;
  return last.content;
}

// Commands whose brace argument is text (skipped by reads_as_prose).
bool is_text_command(std::string_view name) {
  return name == "text" || name == "textbf" || name == "textrm" || name == "textit" ||
         name == "mathrm" || name == "mbox" || name == "operatorname" || name == "mathbf" ||
         name == "textnormal" || name == "begin" || name == "end";
}

// Function names written without a backslash that are not prose.
bool is_function_word(std::string_view w) {
  static constexpr std::array<std::string_view, 16> kWords = {
      "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp",
      "sqrt", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "det"};
  for (std::string_view k : kWords) {
    if (k == w) return true;
  }
  return false;
}

// True when `s` holds a run of two or more letters outside command names that is no
// function name ("so 1", "x is 2"; not "\\sin x", "2\\pi", "x_1").
bool has_word(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\\') {
      ++i;
      while (i < s.size() && is_alpha(s[i])) ++i;
      continue;
    }
    if (!is_alpha(s[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < s.size() && is_alpha(s[end])) ++end;
    const std::string_view w = s.substr(i, end - i);
    if (w.size() >= 2 && !is_function_word(w) && w != "pi" && w != "ln") return true;
    i = end;
  }
  return false;
}

// True when `s` holds only numbers, signs and blanks, and two of its numbers stand side
// by side that are neither a thousands group ("1 000") nor a mixed number ("4 4/9"):
// "4 4/9 2" or "3 5" lists numbers rather than stating one.
bool loose_numbers(std::string_view s) {
  for (char c : s) {
    if (!in_number_run(c) && !is_blank(c) && c != '-' && c != '+') return false;
  }
  for (size_t i = 0; i < s.size();) {
    if (!is_digit(s[i])) {
      ++i;
      continue;
    }
    const size_t stop = number_token_end(s, i);
    size_t j = stop;
    while (j < s.size() && is_blank(s[j])) ++j;
    if (j > stop && j < s.size() && is_digit(s[j])) {
      const std::string_view left = s.substr(i, stop - i);
      const std::string_view right = s.substr(j, number_token_end(s, j) - j);
      const bool whole = left.find_first_not_of("0123456789") == std::string_view::npos;
      const bool group = right.size() == 3 && right.find_first_not_of("0123456789") ==
                                                  std::string_view::npos;
      const bool fraction = right.find('/') != std::string_view::npos &&
                            right.find('.') == std::string_view::npos;
      if (!whole || (!group && !fraction)) return true;
    }
    i = stop == i ? i + 1 : stop;
  }
  return false;
}

// A reference that is only "$...$" spans joined as one answer ("$1$ and $2$ and $3$",
// "$21,16$ or $11$", see boxes_joinable): all of it; nullopt otherwise. At most 64
// spans; O(reference length).
std::optional<std::string_view> joined_spans(std::string_view s) {
  const std::string_view t = trim_blanks(s);
  size_t spans = 0;
  for (size_t i = 0; i < t.size();) {
    if (t[i] != '$' || ++spans > 64) return std::nullopt;
    const std::string_view delimiter = t.substr(i).starts_with("$$") ? "$$" : "$";
    size_t end = t.find(delimiter, i + delimiter.size());
    while (end != std::string_view::npos && t[end - 1] == '\\')
      end = t.find(delimiter, end + 1);
    if (end == std::string_view::npos) return std::nullopt;
    i = end + delimiter.size();
    if (i == t.size()) break;
    const size_t next = t.find('$', i);
    if (next == std::string_view::npos || !boxes_joinable(t.substr(i, next - i)))
      return std::nullopt;
    i = next;
  }
  if (spans < 2) return std::nullopt;
  return t;
}

// The completion itself when it is one math span or a short line of math.
std::optional<std::string_view> extract_whole(std::string_view s) {
  const std::string_view t = trim_blanks(s);
  if (t.empty()) return std::nullopt;
  for (const auto& [open, close] : {std::pair{std::string_view("$$"), std::string_view("$$")},
                                    std::pair{std::string_view("\\("), std::string_view("\\)")},
                                    std::pair{std::string_view("\\["), std::string_view("\\]")},
                                    std::pair{std::string_view("$"), std::string_view("$")}}) {
    if (t.size() <= open.size() + close.size() || !t.starts_with(open) || !t.ends_with(close))
      continue;
    const std::string_view inner = t.substr(open.size(), t.size() - open.size() - close.size());
    if (inner.find(open) != std::string_view::npos || inner.find(close) != std::string_view::npos)
      return std::nullopt;  // "$1$ or $2$": two spans
    const std::string_view content = trim_blanks(inner);
    if (content.empty()) return std::nullopt;
    return content;
  }
  if (t.size() > 120 || t.find('\n') != std::string_view::npos) return std::nullopt;
  if (t.find('$') != std::string_view::npos || t.find("\\(") != std::string_view::npos ||
      t.find("\\boxed") != std::string_view::npos || t.find("\\fbox") != std::string_view::npos ||
      t.find("####") != std::string_view::npos || has_word(t) ||
      t.find("\\[") != std::string_view::npos || reads_as_prose(t) || loose_numbers(t))
    return std::nullopt;
  return t;
}

}  // namespace

bool boxes_joinable(std::string_view gap) {
  static constexpr std::array<std::string_view, 16> kStops = {
      "so",      "thus", "then", "hence", "therefore", "but",    "not",    "is",
      "instead", "wait", "final", "answer", "actually", "however", "correct", "wrong"};
  if (gap.size() > 60) return false;
  bool separator = false, only_blanks = true;
  size_t words = 0, breaks = 0;
  for (size_t i = 0; i < gap.size();) {
    const char c = gap[i];
    if (c == '\n') ++breaks;
    if (!is_blank(c)) only_blanks = false;
    if (c == ',' || c == ';') separator = true;
    if (c == '\\') {  // a command name is no word ("\quad", "\text")
      ++i;
      while (i < gap.size() && is_alpha(gap[i])) ++i;
      continue;
    }
    if (!is_alpha(c)) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < gap.size() && is_alpha(gap[end])) ++end;
    std::string_view word = gap.substr(i, end - i);
    std::array<char, 16> low{};
    if (word.size() <= low.size()) {
      for (size_t k = 0; k < word.size(); ++k) low[k] = lower(word[k]);
      word = std::string_view(low.data(), word.size());
      if (word == "and" || word == "or") separator = true;
      for (std::string_view stop : kStops) {
        if (word == stop) return false;
      }
    }
    ++words;
    i = end;
  }
  if (breaks > 1) return false;
  return only_blanks || (separator && words <= 4);
}

bool reads_as_prose(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\\') {
      size_t end = i + 1;
      while (end < s.size() && is_alpha(s[end])) ++end;
      const std::string_view name = s.substr(i + 1, end - i - 1);
      i = end == i + 1 ? i + 2 : end;
      if (is_text_command(name) && i < s.size() && s[i] == '{') {
        int depth = 0;
        for (; i < s.size(); ++i) {
          if (s[i] == '{') ++depth;
          if (s[i] == '}' && --depth == 0) break;
        }
        ++i;
      }
      continue;
    }
    if (!is_alpha(s[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < s.size() && is_alpha(s[end])) ++end;
    if (end - i >= 3 && !is_function_word(s.substr(i, end - i))) return true;
    i = end;
  }
  return false;
}

std::optional<std::string_view> extract_math_answer(std::string_view completion,
                                                    extraction how) {
  switch (how) {
    case extraction::boxed:
      return extract_boxed(completion);
    case extraction::hashes:
      return extract_hashes(completion);
    case extraction::last_number:
      return extract_last_number(completion);
    case extraction::answer_is:
      return extract_answer_is(completion);
    case extraction::math_delimiters:
      return extract_math_delimiters(completion);
    case extraction::whole:
      return extract_whole(completion);
  }
  return std::nullopt;
}

std::optional<std::string_view> extract_first(std::string_view completion,
                                              const std::vector<extraction>& order) {
  for (const extraction how : order) {
    if (auto found = extract_math_answer(completion, how)) return found;
  }
  return std::nullopt;
}

std::string_view extract_reference(std::string_view reference,
                                   const std::vector<extraction>& order) {
  if (auto joined = joined_spans(reference)) return *joined;
  for (const extraction how : order) {
    if (how == extraction::last_number) continue;
    if (auto found = extract_math_answer(reference, how)) return *found;
  }
  return trim_blanks(reference);
}

}  // namespace adarl
