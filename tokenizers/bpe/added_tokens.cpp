#include "tokenizers/bpe/added_tokens.hpp"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>

namespace adarl {

namespace {

/// Unicode \w as the reference's regex crate defines it.
bool is_word_char(UChar32 c) {
  if (c < 0) return false;
  return u_hasBinaryProperty(c, UCHAR_ALPHABETIC) ||
         (U_GET_GC_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL);
}

/// Unicode \s: the White_Space property.
bool is_space(UChar32 c) {
  return c >= 0 && u_hasBinaryProperty(c, UCHAR_WHITE_SPACE);
}

UChar32 char_before(std::string_view s, size_t end) {
  if (end == 0) return -1;
  int32_t i = static_cast<int32_t>(end);
  UChar32 c;
  U8_PREV(reinterpret_cast<const uint8_t*>(s.data()), 0, i, c);
  return c;
}

UChar32 char_at(std::string_view s, size_t begin, size_t* next = nullptr) {
  if (begin >= s.size()) return -1;
  int32_t i = static_cast<int32_t>(begin);
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), i, static_cast<int32_t>(s.size()),
          c);
  if (next != nullptr) *next = static_cast<size_t>(i);
  return c;
}

}  // namespace

added_token_matcher::added_token_matcher(const std::vector<const added_token*>& tokens,
                                         const std::vector<std::string>& patterns) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (patterns[i].empty()) continue;
    entries_.push_back({patterns[i], tokens[i]});
  }
  for (uint32_t k = 0; k < entries_.size(); ++k) {
    by_first_byte_[static_cast<unsigned char>(entries_[k].pattern[0])].push_back(k);
  }
  for (auto& list : by_first_byte_) {
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return entries_[a].pattern.size() > entries_[b].pattern.size();
    });
  }
}

void added_token_matcher::split(std::string_view text,
                                std::vector<text_segment>& out) const {
  size_t emitted = 0;  // end of the last segment pushed
  size_t pos = 0;  // where the search resumes: after the last match, as find_iter does
  while (pos < text.size()) {
    // Leftmost, then longest.
    const entry* found = nullptr;
    size_t at = pos;
    for (; at < text.size() && found == nullptr; ++at) {
      for (uint32_t k : by_first_byte_[static_cast<unsigned char>(text[at])]) {
        if (text.compare(at, entries_[k].pattern.size(), entries_[k].pattern) == 0) {
          found = &entries_[k];
          break;
        }
      }
    }
    if (found == nullptr) break;
    size_t start = at - 1;
    size_t stop = start + found->pattern.size();
    pos = stop;
    const added_token& t = *found->token;
    if (t.single_word &&
        (is_word_char(char_before(text, start)) || is_word_char(char_at(text, stop)))) {
      continue;
    }
    if (t.lstrip) {
      size_t s = start;
      while (s > 0 && is_space(char_before(text, s))) {
        s -= static_cast<size_t>(U8_LENGTH(char_before(text, s)));
      }
      start = s;
    }
    if (t.rstrip) {
      size_t next = stop;
      while (is_space(char_at(text, stop, &next))) stop = next;
    }
    start =
        std::max(start, emitted);  // the previous match may have absorbed these spaces
    if (emitted < start) out.push_back({text.substr(emitted, start - emitted), -1});
    out.push_back({text.substr(start, stop - start), t.id});
    emitted = stop;
  }
  if (emitted < text.size()) out.push_back({text.substr(emitted), -1});
}

}  // namespace adarl
