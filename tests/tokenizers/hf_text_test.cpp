// The text side of a policy: the character tokenizer and an HF directory's tokenizer with
// its chat format, as the prompt table, the verifiers and the decoder use them.
#include "tokenizers/bpe/hf_text.hpp"

#include <gtest/gtest.h>

#include "tests/formats/hf_test_files.hpp"
#include "tests/formats/tiny_hf.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

using ids = std::vector<int32_t>;

TEST(TextCodecTest, CharacterTokenizerFramesPromptsAsBefore) {
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  ASSERT_TRUE(tok.ok());
  const text_codec& codec = *tok;
  auto p = codec.encode_prompt("ab", "test");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (ids{tokenizer::bos, *tok->encode("a", "")->begin(),
                     *tok->encode("b", "")->begin(), tokenizer::sep}));
  EXPECT_EQ(codec.end_ids(), (ids{tokenizer::eos}));
  EXPECT_TRUE(codec.is_end(tokenizer::eos));
  EXPECT_FALSE(codec.is_end(tokenizer::sep));
  EXPECT_EQ(codec.pad_id(), tokenizer::pad);
  EXPECT_EQ(codec.decode_completion(*p), "ab");
  // A system turn of the item's own: read before the prompt, with a blank line.
  auto sys = codec.encode_prompt_with_system("s", "ab", "test");
  ASSERT_TRUE(sys.ok());
  EXPECT_EQ(codec.decode_completion(*sys), "s\n\nab");
  EXPECT_EQ(*codec.encode_prompt_with_system("", "ab", "test"), *p);
  auto bad = codec.encode_prompt("caf\xc3\xa9", "task \"q\" prompt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.err().message.find("task \"q\" prompt: character byte 0xc3 at position 3"),
            std::string::npos);
}

TEST(TextCodecTest, BoxedFormatAppendsTheInstruction) {
  EXPECT_EQ(format_prompt(prompt_format::plain, "Compute: 2+3."), "Compute: 2+3.");
  EXPECT_EQ(format_prompt(prompt_format::boxed, "Compute: 2+3."),
            "Compute: 2+3. Let's think step by step and output the final answer within "
            "\\boxed{}.");
  EXPECT_EQ(parse_prompt_format("boxed"), prompt_format::boxed);
  EXPECT_FALSE(parse_prompt_format("Boxed").has_value());
}

TEST(ChatTemplateTest, DetectsFamiliesAndTheDefaultSystemTurn) {
  auto small = detect_chat_template(
      nlohmann::json{{"chat_template", test::small_chat_template}}.dump(), "tc.json");
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE(small->present);
  EXPECT_EQ(small->kind, chat_template::chatml);
  EXPECT_EQ(small->default_system, "You are a careful solver.");
  // Qwen2.5-Math's default: the jinja literal's \\boxed{} is one backslash.
  const std::string math =
      "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + "
      "messages[0]['content'] + '<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>system\\nPlease "
      "reason step by step, and put your final answer within \\\\boxed{}.<|im_end|>\\n' }}";
  auto m = detect_chat_template(nlohmann::json{{"chat_template", math}}.dump(), "tc.json");
  EXPECT_EQ(m->default_system,
            "Please reason step by step, and put your final answer within \\boxed{}.");
  auto llama = detect_chat_template(
      R"({"bos_token": "<|begin_of_text|>", "chat_template": "{{ '<|start_header_id|>' }}"})", "t");
  EXPECT_EQ(llama->kind, chat_template::llama3);
  EXPECT_EQ(llama->bos, "<|begin_of_text|>");
  auto none = detect_chat_template(R"({"eos_token": "</s>"})", "t");
  EXPECT_FALSE(none->present);
  auto other = detect_chat_template(R"({"chat_template": "[INST] {{ m }} [/INST]"})", "t");
  EXPECT_TRUE(other->present);
  auto refused = resolve_chat_format(chat_template_choice::automatic, "auto", *other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.err().message.find("model.chat_template: auto cannot tell"), std::string::npos);
  EXPECT_TRUE(resolve_chat_format(chat_template_choice::chatml, "auto", *other).ok());
  auto sys = resolve_chat_format(chat_template_choice::none, "Be brief.", *none);
  ASSERT_FALSE(sys.ok());
  EXPECT_NE(sys.err().message.find("model.system_prompt"), std::string::npos);
  EXPECT_FALSE(detect_chat_template("{oops", "tc.json").ok());
}

TEST(ChatTemplateTest, RendersChatMLAndLlama3TurnsExactly) {
  detected_template qwen;
  qwen.present = true;
  qwen.kind = chat_template::chatml;
  qwen.default_system = "Default.";
  auto f = resolve_chat_format(chat_template_choice::automatic, "auto", qwen);
  EXPECT_EQ(render_chat(*f, "2+3?"),
            "<|im_start|>system\nDefault.<|im_end|>\n<|im_start|>user\n2+3?<|im_end|>\n"
            "<|im_start|>assistant\n");
  EXPECT_EQ(f->turn_end, "<|im_end|>");
  f = resolve_chat_format(chat_template_choice::automatic, "", qwen);
  EXPECT_EQ(render_chat(*f, "2+3?"), "<|im_start|>user\n2+3?<|im_end|>\n<|im_start|>assistant\n");
  detected_template llama;
  llama.present = true;
  llama.kind = chat_template::llama3;
  f = resolve_chat_format(chat_template_choice::automatic, " Be brief. ", llama);
  EXPECT_EQ(render_chat(*f, " 2+3? \n"),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\n2+3?<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  f = resolve_chat_format(chat_template_choice::none, "auto", qwen);
  EXPECT_EQ(render_chat(*f, "2+3?"), "2+3?");
}

class HfTextCodecTest : public ::testing::Test {
 protected:
  test::scratch_dir dir;
  void SetUp() override {
    test::tiny_hf_spec s;
    s.real_tokenizer = false;
    test::write_tiny_hf(dir.file("m"), s);
  }
};

TEST_F(HfTextCodecTest, PromptsGoThroughTheTemplateAndCompletionsLoseSpecialTokens) {
  auto codec = hf_text_codec::open(dir.file("m"), {});
  ASSERT_TRUE(codec.ok()) << codec.err().message;
  const auto& c = **codec;
  // Small tokenizer: bytes 0..255, merges 256..265, then <|endoftext|> 266,
  // <|im_start|> 267, <|im_end|> 268.
  EXPECT_EQ(c.end_ids(), (ids{266, 268}));
  EXPECT_EQ(c.pad_id(), 266);
  EXPECT_EQ(c.vocab_size(), 269);
  auto p = c.encode_prompt("the cat", "task \"t\" prompt");
  ASSERT_TRUE(p.ok()) << p.err().message;
  EXPECT_EQ(p->front(), 267);  // the system turn opens with <|im_start|>
  EXPECT_EQ(c.tokenizer().decode(*p),
            "<|im_start|>system\nYou are a careful solver.<|im_end|>\n<|im_start|>user\n"
            "the cat<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(c.decode_completion(ids{'4', '2', 268}), "42");
  // No template: the text alone, the Qwen-style post-processor adds nothing.
  auto plain = hf_text_codec::open(dir.file("m"), {chat_template_choice::none, "auto"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*(*plain)->encode_prompt("at", "p"), (ids{265}));  // the merge "a t"
  auto user = hf_text_codec::open(dir.file("m"), {chat_template_choice::chatml, "Terse."});
  EXPECT_EQ((*user)->render("x"),
            "<|im_start|>system\nTerse.<|im_end|>\n<|im_start|>user\nx<|im_end|>\n"
            "<|im_start|>assistant\n");
  // An item's own system turn (a dataset's system message) replaces the run's, in the
  // template's system turn; a base model without a template reads it before the prompt.
  auto own = c.encode_prompt_with_system("Be brief.", "the cat", "p");
  ASSERT_TRUE(own.ok()) << own.err().message;
  EXPECT_EQ(c.tokenizer().decode(*own),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n"
            "the cat<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(*c.encode_prompt_with_system("", "the cat", "p"), *p);
  EXPECT_EQ((*plain)->tokenizer().decode(*(*plain)->encode_prompt_with_system("S", "at", "p")),
            "S\n\nat");
  // Llama 3 turns need <|eot_id|>, which this vocabulary lacks.
  auto llama = hf_text_codec::open(dir.file("m"), {chat_template_choice::llama3, "auto"});
  ASSERT_FALSE(llama.ok());
  EXPECT_NE(llama.err().message.find("<|eot_id|>"), std::string::npos);
  EXPECT_FALSE(hf_text_codec::open(dir.file("missing"), {}).ok());
}

TEST(HfTextCodecRealTest, Qwen3TokenizerEndsAtImEndAndEndOfText) {
  const std::string real = test::qwen3_tokenizer_dir();
  if (real.empty()) GTEST_SKIP() << "the Qwen3 tokenizer is not in the npm cache: run scripts/setup.sh";
  test::scratch_dir dir;
  test::write_tiny_hf(dir.file("m"), {});
  auto codec = hf_text_codec::open(dir.file("m"), {});
  ASSERT_TRUE(codec.ok()) << codec.err().message;
  EXPECT_EQ((*codec)->end_ids(), (ids{151643, 151645}));
  EXPECT_EQ((*codec)->pad_id(), 151643);
  EXPECT_EQ((*codec)->format().kind, chat_template::chatml);
  EXPECT_FALSE((*codec)->format().system.has_value());  // Qwen3 inserts none
  auto p = (*codec)->encode_prompt("Compute: 2+3.", "p");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->front(), 151644);  // <|im_start|>
  EXPECT_EQ((*codec)->tokenizer().decode(*p),
            "<|im_start|>user\nCompute: 2+3.<|im_end|>\n<|im_start|>assistant\n");
}

}  // namespace
}  // namespace adarl
