// bpe_tokenizer on a tiny hand-written tokenizer.json: the logic without the npm cache.
#include "tokenizers/bpe/bpe_tokenizer.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

namespace adarl {
namespace {

using ids = std::vector<int32_t>;

const char* qwen_pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

/// A tokenizer.json: vocabulary ids 0..19 in the byte-level alphabet ("Ġ" is a space,
/// "Ã" and "©" the bytes of "é"), added tokens 20..25, `merges` in rank order.
nlohmann::json tiny(const nlohmann::json& merges, const nlohmann::json& pre_tokenizer) {
  const char* vocab[] = {"a",   "b",  "c",    "d",      "Ġ", "ab",   "bc",
                         "abc", "aa", "aaaa", "<0x7A>", "Ã", "©",    "Ġab",
                         "'",   "s",  "'s",   "Ċ",      "e", "<unk>"};
  nlohmann::json v = nlohmann::json::object();
  for (int i = 0; i < 20; ++i) v[vocab[i]] = i;
  const auto added = [](int id, const char* content, bool special, bool lstrip,
                        bool rstrip, bool single_word, bool normalized) {
    return nlohmann::json{{"id", id},
                          {"content", content},
                          {"special", special},
                          {"lstrip", lstrip},
                          {"rstrip", rstrip},
                          {"single_word", single_word},
                          {"normalized", normalized}};
  };
  return {
      {"version", "1.0"},
      {"added_tokens",
       {added(20, "<|end|>", true, false, false, false, false),
        added(21, "[M]", false, true, true, false, false),
        added(22, "cd", false, false, false, true, false),
        added(23, "<|e", true, false, false, false, false),
        added(24, "\u00e9", false, false, false, false, true),
        added(25, "<|begin|>", true, false, false, false, false)}},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer", pre_tokenizer},
      {"post_processor", nullptr},
      {"decoder",
       {{"type", "Sequence"},
        {"decoders", {{{"type", "ByteFallback"}}, {{"type", "ByteLevel"}}}}}},
      {"model",
       {{"type", "BPE"},
        {"vocab", v},
        {"merges", merges},
        {"byte_fallback", true},
        {"unk_token", "<unk>"},
        {"dropout", nullptr}}},
  };
}

nlohmann::json qwen_pre_tokenizer() {
  return {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"},
             {"pattern", {{"Regex", qwen_pattern}}},
             {"behavior", "Isolated"},
             {"invert", false}},
            {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
}

const nlohmann::json merges_a = {"a b", "ab c", "b c", "a a", "aa aa", "Ġ ab", "' s"};

bpe_tokenizer load(const nlohmann::json& j, const std::string& config = "") {
  auto t = bpe_tokenizer::from_json(j.dump(), config, "tiny/tokenizer.json");
  EXPECT_TRUE(t.ok()) << t.err().message;
  return std::move(*t);
}

ids encode(const bpe_tokenizer& t, std::string_view text, bool add_special = false) {
  auto r = t.encode(text, add_special);
  EXPECT_TRUE(r.ok()) << r.err().message;
  return r.ok() ? *r : ids{};
}

TEST(BpeTokenizerTest, MergesApplyLowestRankFirstThenLeftmost) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()));
  EXPECT_EQ(encode(t, "abc"), (ids{7}));  // a b (rank 0), then ab c (rank 1)
  // The same merges with "b c" ranked first: a + bc, and no merge joins those.
  const nlohmann::json merges_b = {"b c", "a b", "ab c", "a a", "aa aa", "Ġ ab", "' s"};
  EXPECT_EQ(encode(load(tiny(merges_b, qwen_pre_tokenizer())), "abc"), (ids{0, 6}));
  EXPECT_EQ(encode(t, "aaa"), (ids{8, 0}));  // leftmost a a first
  EXPECT_EQ(encode(t, "aaaa"), (ids{9}));
  EXPECT_EQ(encode(t, "aaaaa"), (ids{9, 0}));
  EXPECT_EQ(encode(t, "ab ab"), (ids{5, 13}));  // "ab", " ab" -> Ġ ab -> Ġab
  EXPECT_EQ(encode(t, "'s"), (ids{16}));
  EXPECT_EQ(encode(t, "acd"), (ids{0, 2, 3}));  // "cd" inside a word is no single word
  // Merges in the [a, b] pair form read the same.
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& m : merges_a) {
    const auto s = m.get<std::string>();
    pairs.push_back(
        nlohmann::json::array({s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1)}));
  }
  EXPECT_EQ(encode(load(tiny(pairs, qwen_pre_tokenizer())), "abc aaaaa"),
            (ids{7, 4, 9, 0}));
  // The second call is served by the cache and agrees.
  EXPECT_EQ(encode(t, "abc"), (ids{7}));
}

TEST(BpeTokenizerTest, ByteFallbackAndUnknownCharacters) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()));
  EXPECT_EQ(encode(t, "z"), (ids{10}));       // "z" is not in the vocabulary: <0x7A>
  EXPECT_EQ(encode(t, "qq"), (ids{19, 19}));  // no <0x71> either: the unknown token
  EXPECT_EQ(t.decode(ids{0, 10}), "az");      // ByteFallback, then ByteLevel
  auto no_unk = tiny(merges_a, qwen_pre_tokenizer());
  no_unk["model"]["unk_token"] = nullptr;
  // Dropped, as the reference does; the neighbours then merge.
  EXPECT_EQ(encode(load(no_unk), "aqb"), (ids{5}));
}

TEST(BpeTokenizerTest, AddedTokensMatchLongestFirstWithTheirFlags) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()));
  EXPECT_EQ(encode(t, "ab<|end|>ab"), (ids{5, 20, 5}));
  EXPECT_EQ(encode(t, "<|e"), (ids{23}));
  EXPECT_EQ(encode(t, "<|end|><|e<|end|>"), (ids{20, 23, 20}));
  EXPECT_EQ(encode(t, "a [M] b"), (ids{0, 21, 1}));  // lstrip and rstrip take the spaces
  EXPECT_EQ(encode(t, "a cd b"), (ids{0, 4, 22, 4, 1}));  // single word between spaces
  EXPECT_EQ(encode(t, "cd"), (ids{22}));
  // A normalized added token matches after NFC: "e" + combining acute is "é".
  EXPECT_EQ(encode(t, "e\u0301"), (ids{24}));
  EXPECT_EQ(encode(t, "\u00e9"), (ids{24}));
  EXPECT_EQ(t.decode(ids{5, 20, 5}), "ab<|end|>ab");
  EXPECT_EQ(t.decode(ids{5, 20, 5}, /*skip_special_tokens=*/true), "abab");
  EXPECT_EQ(t.decode(ids{21, 22}, /*skip_special_tokens=*/true), "[M]cd");  // not special
  EXPECT_TRUE(t.is_special(20));
  EXPECT_FALSE(t.is_special(21));
  EXPECT_EQ(t.token_to_id("<|end|>"), 20);
  EXPECT_EQ(t.id_to_token(13), "Ġab");
  EXPECT_EQ(t.id_to_token(99), std::nullopt);
  EXPECT_EQ(t.vocab_size(), 26);
}

TEST(BpeTokenizerTest, DecodeMapsBytesBackAndReplacesBrokenUtf8) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()));
  EXPECT_EQ(t.decode(ids{11, 12}), "\u00e9");    // bytes C3 A9
  EXPECT_EQ(t.decode(ids{11}), "\xef\xbf\xbd");  // C3 alone: U+FFFD
  EXPECT_EQ(t.decode(ids{4, 0, 17, 1}), " a\nb");
  EXPECT_EQ(t.decode(ids{0, 1000, -1, 1}), "ab");  // unknown ids are skipped
  EXPECT_EQ(encode(t, ""), ids{});
  EXPECT_EQ(t.decode(ids{}), "");
}

TEST(BpeTokenizerTest, Gpt2StyleByteLevelRegexPrefixSpaceAndTemplate) {
  auto j = tiny(merges_a, {{"type", "ByteLevel"},
                           {"add_prefix_space", true},
                           {"trim_offsets", true},
                           {"use_regex", true}});
  j["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single",
       {{{"SpecialToken", {{"id", "<|begin|>"}, {"type_id", 0}}}},
        {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
      {"special_tokens",
       {{"<|begin|>", {{"id", "<|begin|>"}, {"ids", {25}}, {"tokens", {"<|begin|>"}}}}}}};
  const auto t = load(j);
  EXPECT_EQ(encode(t, "ab ab"), (ids{13, 13}));  // " ab", " ab"
  EXPECT_EQ(encode(t, "ab ab", /*add_special=*/true), (ids{25, 13, 13}));
  EXPECT_EQ(t.decode(ids{25, 13, 13}, /*skip_special_tokens=*/true), " ab ab");
}

TEST(BpeTokenizerTest, SpecialIdsComeFromTheConfig) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()),
                      R"({"eos_token": {"__type": "AddedToken", "content": "<|end|>"},
                          "pad_token": "<|e", "bos_token": null})");
  EXPECT_EQ(t.eos_id(), 20);
  EXPECT_EQ(t.pad_id(), 23);
  EXPECT_EQ(t.bos_id(), std::nullopt);
  EXPECT_EQ(t.unk_id(), std::nullopt);
  EXPECT_EQ(load(tiny(merges_a, qwen_pre_tokenizer())).eos_id(), std::nullopt);
}

TEST(BpeTokenizerTest, ConcurrentEncodesAgreeWithSerialOnes) {
  const auto t = load(tiny(merges_a, qwen_pre_tokenizer()));
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i)
    texts.push_back(std::string(i % 7 + 1, 'a') + " abc" + std::to_string(i));
  std::vector<ids> serial;
  for (const auto& s : texts) serial.push_back(encode(t, s));
  const auto fresh = load(tiny(merges_a, qwen_pre_tokenizer()));  // empty cache
  std::vector<std::vector<ids>> got(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (const auto& s : texts) got[k].push_back(*fresh.encode(s));
    });
  }
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) EXPECT_EQ(got[k], serial) << "thread " << k;
}

TEST(BpeTokenizerTest, BadFilesAreErrorsNamingTheKey) {
  const auto message = [](const nlohmann::json& j, const std::string& config = "") {
    auto t = bpe_tokenizer::from_json(j.dump(), config, "t.json");
    return t.ok() ? std::string("loaded") : t.err().message;
  };
  const auto good = tiny(merges_a, qwen_pre_tokenizer());
  auto j = good;
  j["model"]["merges"] = {"a b", "b zz"};
  EXPECT_EQ(message(j), "t.json: model: merges[1]: \"zz\" is not in the vocabulary");
  j = good;
  j["model"]["merges"] = {"a b c"};
  EXPECT_EQ(
      message(j),
      "t.json: model: merges[0]: \"a b c\" is not two tokens separated by one space");
  j = good;
  j["model"]["merges"] = {"b d"};  // "bd" is not in the vocabulary
  EXPECT_EQ(message(j), "t.json: model: merges[0]: \"bd\" is not in the vocabulary");
  j = good;
  j["model"]["type"] = "WordPiece";
  EXPECT_EQ(message(j), "t.json: model: expected a model of type BPE");
  j = good;
  j["pre_tokenizer"]["pretokenizers"][0] = {{"type", "Whitespace"}};
  EXPECT_EQ(message(j),
            "t.json: pre_tokenizer[0]: unsupported type \"Whitespace\" (expected "
            "Split, ByteLevel or a Sequence of them)");
  j = good;
  j["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Isolated"}};
  EXPECT_EQ(message(j),
            "t.json: pre_tokenizer: no ByteLevel step: not a byte-level BPE tokenizer");
  j = good;
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a";
  EXPECT_EQ(message(j).rfind(
                "t.json: pre_tokenizer[0]: pattern: the pattern does not compile", 0),
            0u)
      << message(j);
  j = good;
  j["normalizer"] = {{"type", "Lowercase"}};
  EXPECT_EQ(message(j),
            "t.json: normalizer: unsupported type \"Lowercase\" (expected null, NFC, "
            "NFD, NFKC, NFKD or a Sequence of them)");
  j = good;
  j["decoder"] = {{"type", "WordPiece"}};
  EXPECT_EQ(message(j).rfind("t.json: decoder: unsupported type \"WordPiece\"", 0), 0u);
  EXPECT_EQ(message(good, R"({"eos_token": "</s>"})"),
            "t.json: tokenizer_config.json: eos_token \"</s>\" is not in the vocabulary");
  EXPECT_EQ(message(good, "{").rfind("t.json: not valid JSON: ", 0), 0u);
  j = good;
  j["added_tokens"][0]["special"] = "yes";
  EXPECT_EQ(message(j).rfind("t.json: unexpected value: ", 0), 0u) << message(j);
  auto bad = load(good).encode("a\xc3");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.err().message, "text to encode is not valid UTF-8 at byte 1");
}

}  // namespace
}  // namespace adarl
