#include <gtest/gtest.h>

#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

TEST(TokenizerTest, RoundTripsTextAndSkipsSpecialTokens) {
  auto t = tokenizer::from_charset(tokenizer::default_charset());
  ASSERT_TRUE(t.ok());
  auto ids = t->encode("Compute: 3+4", "test");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 12u);
  // '\n' is id 4, ' ' is 5, so 'C' (0x43) is 5 + (0x43 - 0x20) = 40.
  EXPECT_EQ((*ids)[0], 40);
  auto with_specials = *ids;
  with_specials.insert(with_specials.begin(), tokenizer::bos);
  with_specials.push_back(tokenizer::eos);
  EXPECT_EQ(t->decode(with_specials), "Compute: 3+4");
  EXPECT_EQ(t->size(), 4 + 1 + 95);
}

TEST(TokenizerTest, UnknownCharacterNamesCharacterPositionAndSource) {
  auto t = tokenizer::from_charset("abc");
  ASSERT_TRUE(t.ok());
  auto ids = t->encode("abxc", "data.jsonl:7 prompt");
  ASSERT_FALSE(ids.ok());
  EXPECT_EQ(ids.err().message,
            "data.jsonl:7 prompt: character 'x' at position 2 is not in the tokenizer's "
            "vocabulary");
  auto bad = t->encode("a\tb", "cfg");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("byte 0x09 at position 1"), std::string::npos);
}

TEST(TokenizerTest, RejectsRepeatedOrNulCharsetBytes) {
  EXPECT_FALSE(tokenizer::from_charset("abca").ok());
  EXPECT_FALSE(tokenizer::from_charset(std::string_view("a\0b", 3)).ok());
  EXPECT_EQ(tokenizer::from_charset("xyz")->decode({4, 6, 99}), "xz?");
}

}  // namespace
}  // namespace adarl
