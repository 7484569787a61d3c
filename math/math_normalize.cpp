#include "math/math_normalize.hpp"

#include <array>
#include <optional>
#include <utility>

#include "base/text.hpp"

namespace adarl {
namespace {

constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Index just after the brace group opening at `open`; npos when it never closes.
size_t group_end(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i + 1;
  }
  return std::string_view::npos;
}

// `s` without one wrapper around all of it, or `s` itself when there is none.
std::string_view unwrap_once(std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kPairs = {
      {{"$$", "$$"}, {"\\(", "\\)"}, {"\\[", "\\]"}, {"$", "$"}}};
  for (const auto& [open, close] : kPairs) {
    if (s.size() < open.size() + close.size() || !s.starts_with(open) ||
        !s.ends_with(close))
      continue;
    const std::string_view inner = s.substr(open.size(), s.size() - open.size() - close.size());
    if (open == "$" && inner.find('$') != std::string_view::npos) continue;  // "$1$ or $2$"
    return inner;
  }
  for (std::string_view box : {std::string_view("\\boxed"), std::string_view("\\fbox")}) {
    if (!s.starts_with(box)) continue;
    size_t open = box.size();
    while (open < s.size() && is_blank(s[open])) ++open;
    if (open < s.size() && s[open] == '{' && group_end(s, open) == s.size())
      return s.substr(open + 1, s.size() - open - 2);
  }
  return s;
}

std::string_view unwrap(std::string_view s) {
  for (;;) {
    s = trim_blanks(s);
    const std::string_view inner = unwrap_once(s);
    if (inner.size() == s.size()) return s;
    s = inner;
  }
}

// UTF-8 spellings and their replacements.
constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kUnicode = {{
    {"\xE2\x88\x92", "-"},        {"\xE2\x80\x93", "-"},        {"\xC3\x97", "\\times "},
    {"\xC2\xB7", "\\cdot "},      {"\xE2\x8B\x85", "\\cdot "},  {"\xC3\xB7", "/"},
    {"\xE2\x89\xA4", "\\le "},    {"\xE2\x89\xA5", "\\ge "},    {"\xE2\x89\xA0", "\\ne "},
    {"\xE2\x88\x9E", "\\infty "}, {"\xCF\x80", "\\pi "},        {"\xE2\x88\x9A", "\\sqrt"},
    {"\xE2\x88\xAA", "\\cup "},   {"\xC2\xB1", "\\pm "},        {"\xE2\x88\x88", "\\in "},
    {"\xE2\x88\x85", "\\emptyset "}, {"\xC2\xB0", "\\circ "},          {"\xE2\x82\xAC", ""},
    {"\xC2\xA3", ""},             {"\xC2\xA5", ""},             {"\xE2\x82\xB9", ""},
    {"\xC2\xA0", " "},            {"\xE2\x80\x89", " "},        {"\xE2\x80\xAF", " "},
}};

// Commands dropped (spacing is handled apart) and commands respelled.
constexpr std::array<std::string_view, 21> kDropped = {
    "left",   "right",    "big",         "Big",         "bigg",   "Bigg",
    "bigl",   "bigr",     "Bigl",        "Bigr",        "biggl",  "biggr",
    "Biggl",  "Biggr",    "middle",      "displaystyle", "textstyle", "scriptstyle",
    "euro",   "pounds",   "textdollar"};
constexpr std::array<std::string_view, 5> kSpacing = {"quad", "qquad", "enspace", "thinspace",
                                                       "medspace"};
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kRespelled = {{
    {"textnormal", "\\text"}, {"textup", "\\text"},
    {"degree", "\\circ "},
    {"dfrac", "\\frac"},   {"tfrac", "\\frac"},   {"cfrac", "\\frac"},  {"dbinom", "\\binom"},
    {"tbinom", "\\binom"}, {"lvert", "|"},        {"rvert", "|"},       {"vert", "|"},
    {"lbrace", "\\{"},     {"rbrace", "\\}"},     {"langle", "("},      {"rangle", ")"},
    {"mathbf", ""},        {"boldsymbol", ""},
}};

template <size_t N>
bool listed(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// A space where dropping a spacing command would glue two letters ("\sin\,x").
void glue(std::string& out, std::string_view s, size_t next) {
  if (!out.empty() && is_alpha(out.back()) && next < s.size() && is_alpha(s[next]))
    out += ' ';
}

// One command at s[i] == '\\': appended to `out` as it should read; returns the index
// after it.
size_t rewrite_command(std::string_view s, size_t i, std::string& out) {
  if (i + 1 >= s.size()) return i + 1;  // a lone trailing backslash
  const char c = s[i + 1];
  if (!is_alpha(c)) {
    if (c == '!' || c == '$' || c == '%') return i + 2;
    if (c == ',' || c == ';' || c == ':' || c == ' ') {
      glue(out, s, i + 2);
      return i + 2;
    }
    out.append(s.substr(i, 2));
    return i + 2;
  }
  size_t end = i + 1;
  while (end < s.size() && is_alpha(s[end])) ++end;
  const std::string_view name = s.substr(i + 1, end - i - 1);
  if (listed(kDropped, name)) {
    if ((name == "left" || name == "right" || name == "middle") && end < s.size() &&
        s[end] == '.')
      ++end;  // the null delimiter
    glue(out, s, end);
    return end;
  }
  if (listed(kSpacing, name)) {
    glue(out, s, end);
    return end;
  }
  // "\quadx_{2}": a spacing command glued to the letters after it (no such command exists).
  for (std::string_view space : {std::string_view("qquad"), std::string_view("quad")}) {
    if (name.size() > space.size() && name.starts_with(space)) {
      glue(out, s, i + 1 + space.size());
      return i + 1 + space.size();
    }
  }
  for (const auto& [from, to] : kRespelled) {
    if (from == name) {
      out += to;
      return end;
    }
  }
  out.append(s.substr(i, end - i));
  return end;
}

std::string rewrite(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    bool replaced = false;
    for (const auto& [from, to] : kUnicode) {
      if (s.substr(i).starts_with(from)) {
        out += to;
        i += from.size();
        replaced = true;
        break;
      }
    }
    if (replaced) continue;
    if (s[i] == '\\') {
      i = rewrite_command(s, i, out);
    } else if (s[i] == '~') {
      glue(out, s, ++i);
    } else if (s[i] == '$' || s[i] == '%') {
      ++i;
    } else {
      out += is_blank(s[i]) ? ' ' : s[i];
      ++i;
    }
  }
  return out;
}

// Erases every occurrence of `what` in `s`.
void erase_all(std::string& s, std::string_view what) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at))
    s.erase(at, what.size());
}

// Replaces every occurrence of `what` in `s` by `with`.
void replace_all(std::string& s, std::string_view what, std::string_view with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
}

// True when s[at] starts exactly three digits not followed by another digit.
bool three_digits_at(const std::string& s, size_t at) {
  return at + 3 <= s.size() && is_digit(s[at]) && is_digit(s[at + 1]) &&
         is_digit(s[at + 2]) && (at + 3 == s.size() || !is_digit(s[at + 3]));
}

// Removes thousands separators ("," or " ") outside brackets, in place.
void join_thousands(std::string& s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    const bool run_start = is_digit(c) && (i == 0 || (!is_digit(s[i - 1]) && s[i - 1] != '.'));
    if (!run_start || depth != 0) continue;
    size_t lead = i;
    while (lead < s.size() && is_digit(s[lead])) ++lead;
    const size_t digits = lead - i;
    if (digits > 3 || c == '0') continue;  // "0,500" is no thousands grouping
    for (size_t at = lead; at < s.size() && (s[at] == ',' || s[at] == ' ') &&
                           three_digits_at(s, at + 1);) {
      s.erase(at, 1);
      at += 3;
    }
    // The digits of this number are skipped by the run_start test.
  }
}

// "\boxed{1} and \boxed{2}" (boxes found together, math_extract.hpp) as "1, 2"; nullopt
// when `s` holds fewer than two boxes.
std::optional<std::string> joined_boxes(std::string_view s) {
  std::string out;
  int boxes = 0;
  for (size_t i = 0; i < s.size();) {
    size_t length = 0;
    if (s.substr(i).starts_with("\\boxed")) length = 6;
    if (s.substr(i).starts_with("\\fbox")) length = 5;
    if (length == 0) {
      ++i;
      continue;
    }
    size_t open = i + length;
    while (open < s.size() && is_blank(s[open])) ++open;
    const size_t end = open < s.size() && s[open] == '{' ? group_end(s, open)
                                                           : std::string_view::npos;
    if (end == std::string_view::npos) return std::nullopt;
    if (boxes++ > 0) out += ", ";
    out.append(s.substr(open + 1, end - open - 2));
    i = end;
  }
  if (boxes < 2) return std::nullopt;
  return out;
}

// ",\!" followed by blanks is a thousands separator ("11,\! 111"): the blanks go.
std::string glue_thin_separators(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == ',' && s.substr(i + 1).starts_with("\\!")) {
      i += 2;
      while (i + 1 < s.size() && is_blank(s[i + 1])) ++i;
    }
  }
  return out;
}

}  // namespace

std::string normalize_math_answer(std::string_view answer) {
  std::string joined;
  if (auto boxes = joined_boxes(answer)) joined = std::move(*boxes);
  if (!joined.empty()) answer = joined;
  const std::string glued = glue_thin_separators(unwrap(answer));
  std::string s = rewrite(glued);
  erase_all(s, "{,}");
  // Degrees become one marker, "\circ" after the angle: the reader drops it, or turns it
  // into pi/180 inside a trigonometric function ("\cos 15^\circ").
  replace_all(s, "^{\\circ}", "\\circ ");
  replace_all(s, "^\\circ", "\\circ ");
  erase_all(s, "\\text{}");
  erase_all(s, "\\mathrm{}");
  // Blanks collapsed before the thousands pass, so "1  000" is not a group.
  std::string collapsed;
  collapsed.reserve(s.size());
  for (char c : s) {
    if (c == ' ' && (collapsed.empty() || collapsed.back() == ' ')) continue;
    collapsed += c;
  }
  join_thousands(collapsed);
  std::string_view t = trim_blanks(collapsed);
  // An ellipsis is no sentence punctuation: "1, 2, 3, ..." keeps it (and does not parse).
  while (!t.empty() && !t.ends_with("..") &&
         (t.back() == '.' || t.back() == ',' || t.back() == ';' || t.back() == ':')) {
    t.remove_suffix(1);
    t = trim_blanks(t);
  }
  return std::string(unwrap(t));
}

std::string math_text_key(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      size_t end = i + 1;
      while (end < s.size() && is_alpha(s[end])) ++end;
      const std::string_view name = s.substr(i + 1, end - i - 1);
      if (name == "text" || name == "textbf" || name == "textrm" || name == "textit" ||
          name == "mathrm" || name == "mbox" || name == "mathit" || name == "emph") {
        i = end - 1;
        continue;
      }
    }
    if (s[i] == '{' || s[i] == '}' || is_blank(s[i])) continue;
    out += (s[i] >= 'A' && s[i] <= 'Z') ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
  }
  while (!out.empty() && out.back() == '.') out.pop_back();
  if (out.size() == 3 && out[0] == '(' && out[2] == ')') out = out.substr(1, 1);
  return out;
}

std::size_t math_word_count(std::string_view text) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : text) {
    const bool blank = is_blank(c);
    if (!blank && !in_word) ++words;
    in_word = !blank;
  }
  return words;
}

}  // namespace adarl
