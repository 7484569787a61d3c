// The prompt table's token ids of a task: its prompt format, then the codec, with the
// item's own system turn when it has one (a dataset's chat-message prompt, issue 37).
#include "actors/prompt_table.hpp"

#include <gtest/gtest.h>

#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

TEST(PromptTableTest, AnItemsSystemTurnGoesToTheCodecBeforeThePromptFormat) {
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  ASSERT_TRUE(tok.ok());
  task_item item{"q1", "Compute: 2+3.", "5", "math", "math", "", 1, "Be brief."};
  auto ids = prompt_tokens(*tok, item, prompt_format::boxed);
  ASSERT_TRUE(ids.ok()) << ids.err().message;
  // The character policy reads the system text first; the format words the user text.
  EXPECT_EQ(tok->decode_completion(*ids),
            "Be brief.\n\n" + format_prompt(prompt_format::boxed, "Compute: 2+3."));
  item.system.clear();
  auto plain = prompt_tokens(*tok, item, prompt_format::plain);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, *tok->encode_prompt("Compute: 2+3.", "p"));
  // A system text the vocabulary cannot express names the task.
  item.system = "caf\xc3\xa9";
  auto bad = prompt_tokens(*tok, item, prompt_format::plain);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("task \"q1\" prompt"), std::string::npos) << bad.err().message;
}

}  // namespace
}  // namespace adarl
