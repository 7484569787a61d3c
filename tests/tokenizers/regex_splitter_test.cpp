#include "tokenizers/bpe/regex_splitter.hpp"

#include <gtest/gtest.h>

#include "tokenizers/bpe/byte_level.hpp"

namespace adarl {
namespace {

using pieces = std::vector<std::string_view>;

const char* qwen_pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

pieces split(const regex_splitter& r, std::string_view text,
             split_behavior b = split_behavior::isolated, bool invert = false) {
  pieces out;
  r.split(text, b, invert, out);
  return out;
}

TEST(RegexSplitterTest, Qwen2PatternCutsAsTheReference) {
  auto r = regex_splitter::compile(qwen_pattern, /*literal=*/false, "test");
  ASSERT_TRUE(r.ok()) << r.err().message;
  EXPECT_EQ(split(*r, "Hello world's 123!!\n\n  x"),
            (pieces{"Hello", " world", "'s", " ", "1", "2", "3", "!!\n\n", " ", " x"}));
  // (?i:...) takes upper-case contractions; \p{L} takes any script; a space run keeps
  // its last space for the next word.
  EXPECT_EQ(split(*r, "I'LL 日本語   ok"), (pieces{"I", "'LL", " 日本語", "  ", " ok"}));
  EXPECT_EQ(split(*r, "a\r\n\r\nb"), (pieces{"a", "\r\n\r\n", "b"}));
}

TEST(RegexSplitterTest, WhitespaceIsOnigurumasNotPcre2s) {
  EXPECT_EQ(
      oniguruma_whitespace(R"(\s+(?!\S)|[^\s\p{L}]+|[\S]|[^\S]|\Q\s\E|[\\s])"),
      R"([^\S\x{180e}]+(?![\S\x{180e}])|(?:\x{180e}|[^\s\p{L}])+|(?:\x{180e}|[\S])|)"
      R"((?:(?!\x{180e})[^\S])|\Q\s\E|[\\s])");
  EXPECT_EQ(oniguruma_whitespace(R"([[:alpha:]\s])"), R"((?:(?!\x{180e})[[:alpha:]\s]))");
  auto r = regex_splitter::compile(qwen_pattern, /*literal=*/false, "test");
  ASSERT_TRUE(r.ok());
  // U+180E (a format character since Unicode 6.3) is no space: it joins the punctuation.
  EXPECT_EQ(split(*r, "a\u180e'd"), (pieces{"a", "\u180e'", "d"}));
  // U+0085 is White_Space in both engines.
  EXPECT_EQ(split(*r, "a\u0085'd"), (pieces{"a", "\u0085", "'d"}));
}

TEST(RegexSplitterTest, BehaviorsArrangeMatchesAsTheReference) {
  auto r = regex_splitter::compile("-", /*literal=*/true, "test");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(split(*r, "a-b--c"), (pieces{"a", "-", "b", "-", "-", "c"}));
  EXPECT_EQ(split(*r, "a-b--c", split_behavior::removed), (pieces{"a", "b", "c"}));
  EXPECT_EQ(split(*r, "a-b--c", split_behavior::merged_with_previous),
            (pieces{"a-", "b-", "-", "c"}));
  EXPECT_EQ(split(*r, "a-b--c", split_behavior::merged_with_next),
            (pieces{"a", "-b", "-", "-c"}));
  EXPECT_EQ(split(*r, "a-b--c", split_behavior::contiguous),
            (pieces{"a", "-", "b", "--", "c"}));
  EXPECT_EQ(split(*r, "a-b--c", split_behavior::removed, /*invert=*/true),
            (pieces{"-", "-", "-"}));
  // A literal pattern is not a regex.
  auto dot = regex_splitter::compile(".", /*literal=*/true, "test");
  EXPECT_EQ(split(*dot, "a.b"), (pieces{"a", ".", "b"}));
}

TEST(RegexSplitterTest, EmptyMatchesCutNothingAndBadPatternsAreErrors) {
  auto r = regex_splitter::compile("x*", /*literal=*/false, "test");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(split(*r, "abxxc"), (pieces{"ab", "xx", "c"}));
  auto bad = regex_splitter::compile("(a", /*literal=*/false, "f.json: pattern");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.err().message,
      "f.json: pattern: the pattern does not compile (PCRE2, at offset 2 of (a): missing "
      "closing parenthesis");
}

TEST(ByteLevelTest, AlphabetIsGpt2s) {
  EXPECT_EQ(byte_level::encode_byte(' '), "\u0120");   // Ġ
  EXPECT_EQ(byte_level::encode_byte('\n'), "\u010a");  // Ċ
  EXPECT_EQ(byte_level::encode_byte('A'), "A");
  EXPECT_EQ(byte_level::encode_byte(0xad), "\u0143");  // the last byte remapped
  EXPECT_EQ(byte_level::encode_byte(0xff), "\u00ff");
  std::string all, text, back;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  byte_level::encode(all, text);
  ASSERT_TRUE(byte_level::decode(text, back));
  EXPECT_EQ(back, all);
  std::string out = "x";
  EXPECT_FALSE(byte_level::decode("a\u4e2d", out));  // 中 is not in the alphabet
  EXPECT_EQ(out, "x");
}

TEST(ByteLevelTest, LossyUtf8ReplacesEachMaximalInvalidSubpart) {
  EXPECT_EQ(utf8_lossy("ok \xe2\x82"
                       "A"),
            "ok \ufffd"
            "A");                                               // truncated 3-byte
  EXPECT_EQ(utf8_lossy("\xf0\x9f\x98"), "\ufffd");              // truncated at the end
  EXPECT_EQ(utf8_lossy("\xc0\xaf"), "\ufffd\ufffd");            // overlong lead
  EXPECT_EQ(utf8_lossy("\xed\xa0\x80"), "\ufffd\ufffd\ufffd");  // surrogate
  EXPECT_EQ(utf8_lossy("\xf4\x90\x80\x80"), "\ufffd\ufffd\ufffd\ufffd");  // past U+10FFFF
  EXPECT_EQ(utf8_lossy("\u00e9\U0001F600"), "\u00e9\U0001F600");
  EXPECT_EQ(utf8_error_offset("abc\xff"), 3u);
  EXPECT_TRUE(is_valid_utf8("\u00e9\U0001F600"));
}

}  // namespace
}  // namespace adarl
