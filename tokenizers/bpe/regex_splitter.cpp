#include "tokenizers/bpe/regex_splitter.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizers/bpe/byte_level.hpp"

namespace adarl {

struct regex_splitter::code {
  pcre2_code* re = nullptr;
  ~code() { pcre2_code_free(re); }
};

namespace {

struct piece {
  size_t begin, end;
  bool is_match;
};

/// Match data big enough for the whole match of any pattern (pcre2_match returns 0 when
/// the captures do not fit, with the whole match still set). One per thread, reused.
pcre2_match_data* thread_match_data() {
  struct holder {
    pcre2_match_data* md = pcre2_match_data_create(1, nullptr);
    ~holder() { pcre2_match_data_free(md); }
  };
  thread_local holder h;
  return h.md;
}

/// Runs one match. The default limits (10 million backtracks, 32 KiB of JIT stack) stop
/// the tokenizers' patterns on whitespace runs of about 16 MB, which they match in linear
/// time: such a match is retried without the backtrack limit and with a larger stack.
int match(const pcre2_code* re, std::string_view text, size_t start,
          pcre2_match_data* md) {
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  int rc = pcre2_match(re, subject, text.size(), start, PCRE2_NO_UTF_CHECK, md, nullptr);
  if (rc != PCRE2_ERROR_JIT_STACKLIMIT && rc != PCRE2_ERROR_MATCHLIMIT) return rc;
  pcre2_jit_stack* stack = pcre2_jit_stack_create(64 * 1024, 512 * 1024 * 1024, nullptr);
  pcre2_match_context* ctx = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(ctx, UINT32_MAX);
  pcre2_jit_stack_assign(ctx, nullptr, stack);
  rc = pcre2_match(re, subject, text.size(), start, PCRE2_NO_UTF_CHECK, md, ctx);
  pcre2_match_context_free(ctx);
  pcre2_jit_stack_free(stack);
  return rc;
}

/// The reference's SplitDelimiterBehavior over pieces that cover the text in order.
std::vector<piece> arrange(const std::vector<piece>& pieces, split_behavior behavior) {
  std::vector<piece> out;
  bool previous_match = false;
  switch (behavior) {
    case split_behavior::isolated:
      return pieces;
    case split_behavior::removed:
      for (const auto& p : pieces) {
        if (!p.is_match) out.push_back(p);
      }
      return out;
    case split_behavior::merged_with_previous:
      for (const auto& p : pieces) {
        if (p.is_match && !previous_match && !out.empty()) {
          out.back().end = p.end;
        } else {
          out.push_back(p);
        }
        previous_match = p.is_match;
      }
      return out;
    case split_behavior::merged_with_next:
      for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) {
          out.back().begin = it->begin;
        } else {
          out.push_back(*it);
        }
        previous_match = it->is_match;
      }
      return {out.rbegin(), out.rend()};
    case split_behavior::contiguous:
      for (const auto& p : pieces) {
        if (p.is_match == previous_match && !out.empty()) {
          out.back().end = p.end;
        } else {
          out.push_back(p);
        }
        previous_match = p.is_match;
      }
      return out;
  }
  return out;
}

}  // namespace

std::string oniguruma_whitespace(std::string_view p) {
  constexpr std::string_view add = "(?:\\x{180e}|", exclude = "(?:(?!\\x{180e})";
  std::string out;
  size_t i = 0;
  while (i < p.size()) {
    if (p.compare(i, 2, "\\Q") == 0) {  // quoted literal text up to \E
      const size_t end = p.find("\\E", i + 2);
      const size_t stop = end == std::string_view::npos ? p.size() : end + 2;
      out.append(p.substr(i, stop - i));
      i = stop;
    } else if (p[i] == '\\' && i + 1 < p.size()) {
      if (p[i + 1] == 's') {
        out += "[^\\S\\x{180e}]";
      } else if (p[i + 1] == 'S') {
        out += "[\\S\\x{180e}]";
      } else {
        out.append(p.substr(i, 2));
      }
      i += 2;
    } else if (p[i] == '[') {
      size_t j = i + 1;
      const bool negated = j < p.size() && p[j] == '^';
      if (negated) ++j;
      if (j < p.size() && p[j] == ']') ++j;  // a leading ] is literal
      bool space = false, non_space = false;
      while (j < p.size() && p[j] != ']') {
        if (p[j] == '\\' && j + 1 < p.size()) {
          space = space || p[j + 1] == 's';
          non_space = non_space || p[j + 1] == 'S';
          j += 2;
        } else if (p.compare(j, 2, "[:") == 0 &&
                   p.find(":]", j + 2) != std::string_view::npos) {
          j = p.find(":]", j + 2) + 2;
        } else {
          ++j;
        }
      }
      const auto cls = p.substr(i, std::min(j + 1, p.size()) - i);
      if (space == non_space) {  // neither (or both: the class holds every character)
        out.append(cls);
      } else {
        // A class with \s must not hold U+180E, a negated one must; \S the other way.
        const bool holds_180e = space == negated;
        out.append(holds_180e ? add : exclude).append(cls).append(")");
      }
      i = j + 1;
    } else {
      out += p[i++];
    }
  }
  return out;
}

result<regex_splitter> regex_splitter::compile(std::string_view pattern, bool literal,
                                               std::string_view where) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  // PCRE2_LITERAL cannot be combined with PCRE2_UCP (nothing to classify then).
  const uint32_t options =
      literal ? (PCRE2_UTF | PCRE2_LITERAL) : (PCRE2_UTF | PCRE2_UCP);
  const std::string source =
      literal ? std::string(pattern) : oniguruma_whitespace(pattern);
  pcre2_code* re =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(), options,
                    &error_code, &error_offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof(message));
    return error{std::string(where) +
                 ": the pattern does not compile (PCRE2, at offset " +
                 std::to_string(error_offset) + " of " + source +
                 "): " + reinterpret_cast<const char*>(message)};
  }
  auto c = std::make_shared<code>();
  c->re = re;
  // Without JIT (an unsupported platform) pcre2_match interprets: slower, same results.
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
  return regex_splitter(std::move(c));
}

void regex_splitter::split(std::string_view text, split_behavior behavior, bool invert,
                           std::vector<std::string_view>& out) const {
  pcre2_match_data* md = thread_match_data();
  std::vector<piece> pieces;
  size_t pos = 0, last = 0;
  while (pos <= text.size()) {
    const int rc = match(code_->re, text, pos, md);
    if (rc < 0) break;  // no (further) match; match limits do not apply to these patterns
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t begin = ov[0], end = ov[1];
    if (end == begin) {  // an empty match cuts nothing: step over one code point
      if (begin >= text.size()) break;
      pos = begin + utf8_length(static_cast<unsigned char>(text[begin]));
      continue;
    }
    if (begin > last) pieces.push_back({last, begin, invert});
    pieces.push_back({begin, end, !invert});
    last = pos = end;
  }
  if (last < text.size()) pieces.push_back({last, text.size(), invert});
  for (const auto& p : arrange(pieces, behavior)) {
    if (p.end > p.begin) out.push_back(text.substr(p.begin, p.end - p.begin));
  }
}

}  // namespace adarl
