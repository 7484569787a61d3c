// GGUF from a Hugging Face checkpoint (formats/gguf_writer.hpp), read back by a reader of
// the format written here from ggml's description: the header, every metadata value, the
// tensor table under llama.cpp's names with dims innermost first, aligned offsets, and
// the weights equal to the checkpoint's. (A real llama-server loads these files in
// tests/models/llama_server_test.cpp.)
#include "formats/gguf_writer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <variant>

#include "formats/safetensors_checkpoint.hpp"
#include "hf_test_files.hpp"
#include "tiny_hf.hpp"

namespace adarl {
namespace {

/// What the reader understands of a GGUF file.
struct gguf_file {
  uint32_t version = 0;
  std::map<std::string, std::variant<uint32_t, float, bool, std::string,
                                     std::vector<std::string>, std::vector<int32_t>>>
      kv;
  struct tensor {
    std::vector<uint64_t> dims;
    uint32_t type = 0;
    uint64_t offset = 0;
  };
  std::map<std::string, tensor> tensors;
  std::vector<std::string> order;
  size_t data_start = 0;
  std::string bytes;
};

struct reader {
  const std::string& b;
  size_t at = 0;
  template <class T>
  T get() {
    if (at + sizeof(T) > b.size()) throw std::runtime_error("truncated");
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    const auto n = get<uint64_t>();
    if (at + n > b.size()) throw std::runtime_error("truncated string");
    std::string s = b.substr(at, n);
    at += n;
    return s;
  }
};

gguf_file read_gguf(const std::string& path) {
  gguf_file g;
  g.bytes = test::read_bytes(path);
  reader r{g.bytes};
  if (g.bytes.substr(0, 4) != "GGUF") throw std::runtime_error("no magic");
  r.at = 4;
  g.version = r.get<uint32_t>();
  const auto n_tensors = r.get<uint64_t>();
  const auto n_kv = r.get<uint64_t>();
  for (uint64_t i = 0; i < n_kv; ++i) {
    const std::string key = r.str();
    const auto type = r.get<uint32_t>();
    if (type == 4)
      g.kv[key] = r.get<uint32_t>();
    else if (type == 6)
      g.kv[key] = r.get<float>();
    else if (type == 7)
      g.kv[key] = r.get<uint8_t>() != 0;
    else if (type == 8)
      g.kv[key] = r.str();
    else if (type == 9) {
      const auto elem = r.get<uint32_t>();
      const auto n = r.get<uint64_t>();
      if (elem == 8) {
        std::vector<std::string> v;
        for (uint64_t k = 0; k < n; ++k) v.push_back(r.str());
        g.kv[key] = v;
      } else if (elem == 5) {
        std::vector<int32_t> v;
        for (uint64_t k = 0; k < n; ++k) v.push_back(r.get<int32_t>());
        g.kv[key] = v;
      } else {
        throw std::runtime_error("array of type " + std::to_string(elem));
      }
    } else {
      throw std::runtime_error("value type " + std::to_string(type) + " of " + key);
    }
  }
  for (uint64_t i = 0; i < n_tensors; ++i) {
    const std::string name = r.str();
    gguf_file::tensor t;
    const auto dims = r.get<uint32_t>();
    for (uint32_t d = 0; d < dims; ++d) t.dims.push_back(r.get<uint64_t>());
    t.type = r.get<uint32_t>();
    t.offset = r.get<uint64_t>();
    g.tensors[name] = t;
    g.order.push_back(name);
  }
  g.data_start = (r.at + 31) / 32 * 32;
  return g;
}

TEST(GgufWriterTest, AQwen2CheckpointReadsBackWithLlamaCppsNamesAndItsWeights) {
  test::scratch_dir dir;
  test::tiny_hf_spec spec;
  spec.real_tokenizer = false;  // the small byte-level tokenizer
  spec.hidden = 16;
  spec.intermediate = 32;
  spec.heads = 4;
  spec.kv_heads = 2;
  test::write_tiny_hf(dir.file("hf"), spec);
  auto written = write_gguf_from_hf(dir.file("hf"), dir.file("m.gguf"), "tiny");
  ASSERT_TRUE(written) << written.err().message;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.gguf.tmp")));
  const auto g = read_gguf(dir.file("m.gguf"));
  EXPECT_EQ(*written, g.bytes.size());
  EXPECT_EQ(g.version, 3u);
  EXPECT_EQ(std::get<std::string>(g.kv.at("general.architecture")), "qwen2");
  EXPECT_EQ(std::get<std::string>(g.kv.at("general.name")), "tiny");
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("qwen2.embedding_length")), 16u);
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("qwen2.block_count")), 2u);
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("qwen2.attention.head_count")), 4u);
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("qwen2.attention.head_count_kv")), 2u);
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("qwen2.context_length")), 512u);
  EXPECT_FLOAT_EQ(std::get<float>(g.kv.at("qwen2.rope.freq_base")), 10000.f);
  EXPECT_EQ(std::get<std::string>(g.kv.at("tokenizer.ggml.model")), "gpt2");

  // The vocabulary, padded to vocab_size; special tokens are control tokens.
  const auto tok = nlohmann::json::parse(test::read_bytes(dir.file("hf/tokenizer.json")));
  const auto config = nlohmann::json::parse(test::read_bytes(dir.file("hf/config.json")));
  const auto& tokens =
      std::get<std::vector<std::string>>(g.kv.at("tokenizer.ggml.tokens"));
  const auto& types =
      std::get<std::vector<int32_t>>(g.kv.at("tokenizer.ggml.token_type"));
  ASSERT_EQ(tokens.size(), config["vocab_size"].get<size_t>());
  ASSERT_EQ(types.size(), tokens.size());
  const int64_t im_end = test::added_token_id(tok, "<|im_end|>");
  EXPECT_EQ(tokens[size_t(im_end)], "<|im_end|>");
  EXPECT_EQ(types[size_t(im_end)], 3);  // control
  for (const auto& [s, id] : tok["model"]["vocab"].items())
    EXPECT_EQ(tokens[id.get<size_t>()], s);
  EXPECT_EQ(std::get<uint32_t>(g.kv.at("tokenizer.ggml.eos_token_id")), uint32_t(im_end));
  EXPECT_EQ(std::get<std::vector<std::string>>(g.kv.at("tokenizer.ggml.merges")).size(),
            tok["model"]["merges"].size());

  // Tensors: llama.cpp's names, no output.weight for tied embeddings, dims reversed.
  EXPECT_EQ(g.tensors.count("output.weight"), 0u);
  const auto& q = g.tensors.at("blk.1.attn_q.weight");
  EXPECT_EQ(q.dims, (std::vector<uint64_t>{16, 16}));
  EXPECT_EQ(g.tensors.at("blk.0.attn_k.weight").dims, (std::vector<uint64_t>{16, 8}));
  EXPECT_EQ(g.tensors.at("blk.0.attn_q.bias").dims, (std::vector<uint64_t>{16}));
  EXPECT_EQ(g.tensors.at("blk.0.ffn_down.weight").dims, (std::vector<uint64_t>{32, 16}));
  const auto& emb = g.tensors.at("token_embd.weight");
  EXPECT_EQ(emb.dims, (std::vector<uint64_t>{16, config["vocab_size"].get<uint64_t>()}));
  for (const auto& [name, t] : g.tensors) {
    EXPECT_EQ(t.type, 0u) << name;  // float32
    EXPECT_EQ(t.offset % 32, 0u) << name;
  }
  // The weights are the checkpoint's (bfloat16 widened exactly).
  auto st = safetensors_checkpoint::open(dir.file("hf"));
  ASSERT_TRUE(st);
  auto view = st->tensor("model.layers.1.self_attn.q_proj.weight");
  ASSERT_TRUE(view);
  std::vector<float> want(size_t(view->numel()));
  ASSERT_TRUE(to_float32(*view, want, "q"));
  std::vector<float> got(want.size());
  std::memcpy(got.data(), g.bytes.data() + g.data_start + q.offset, got.size() * 4);
  EXPECT_EQ(got, want);
}

TEST(GgufWriterTest, AnArchitectureItCannotWriteIsAnErrorNamingIt) {
  test::scratch_dir dir;
  test::tiny_hf_spec spec;
  spec.real_tokenizer = false;
  spec.model_type = "llama";
  spec.hidden = 16;
  spec.intermediate = 32;
  test::write_tiny_hf(dir.file("hf"), spec);
  auto written = write_gguf_from_hf(dir.file("hf"), dir.file("m.gguf"));
  ASSERT_FALSE(written);
  EXPECT_NE(written.err().message.find("model_type \"llama\""), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.gguf")));
  auto missing = write_gguf_from_hf(dir.file("nothing"), dir.file("m.gguf"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("nothing"), std::string::npos);
}

}  // namespace
}  // namespace adarl
