#include "formats/safetensors_checkpoint.hpp"

#include <gtest/gtest.h>

#include "formats/safetensors_writer.hpp"
#include "tests/formats/hf_test_files.hpp"

namespace adarl {
namespace {

using test::scratch_dir;
using test::write_bytes;

template <class T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span(v));
}

/// Two shards and the index that joins them, as transformers' save_pretrained writes.
struct sharded {
  scratch_dir dir;
  std::vector<float> embed{1.f, 2.f, 3.f, 4.f};
  std::vector<uint16_t> norm{float_to_bf16(0.5f), float_to_bf16(-8.f)};
  sharded() {
    const std::vector<tensor_to_write> one{
        {"embed", tensor_dtype::f32, {2, 2}, bytes_of(embed)}};
    const std::vector<tensor_to_write> two{
        {"norm", tensor_dtype::bf16, {2}, bytes_of(norm)}};
    EXPECT_TRUE(
        write_safetensors(dir.file("model-00001-of-00002.safetensors"), one).ok());
    EXPECT_TRUE(
        write_safetensors(dir.file("model-00002-of-00002.safetensors"), two).ok());
  }
  void index(const std::string& weight_map) {
    write_bytes(dir.file("model.safetensors.index.json"),
                R"({"metadata": {"total_size": 20}, "weight_map": )" + weight_map + "}");
  }
};

TEST(SafetensorsCheckpointTest, OpensShardsThroughTheIndexAsOneCheckpoint) {
  sharded s;
  s.index(R"({"embed": "model-00001-of-00002.safetensors",
              "norm": "model-00002-of-00002.safetensors"})");
  auto c = safetensors_checkpoint::open(s.dir.file(""));
  ASSERT_TRUE(c.ok()) << c.err().message;
  EXPECT_EQ(c->shard_count(), 2u);
  EXPECT_EQ(c->names(), (std::vector<std::string>{"embed", "norm"}));
  auto norm = c->tensor_float32("norm", std::vector<int64_t>{2});
  ASSERT_TRUE(norm.ok()) << norm.err().message;
  EXPECT_EQ(*norm, (std::vector<float>{0.5f, -8.f}));
  auto embed = c->tensor_float32("embed", std::vector<int64_t>{2, 2});
  ASSERT_TRUE(embed.ok());
  EXPECT_EQ(*embed, s.embed);

  const auto index = s.dir.file("model.safetensors.index.json");
  EXPECT_EQ(c->tensor("lm_head").err().message, index + ": no tensor 'lm_head'");
  EXPECT_EQ(c->tensor_float32("embed", std::vector<int64_t>{4}).err().message,
            s.dir.file("model-00001-of-00002.safetensors") +
                ": tensor 'embed' has shape [2, 2], expected [4]");
}

TEST(SafetensorsCheckpointTest, OpensASingleFileOrADirectoryWithOne) {
  scratch_dir dir;
  const std::vector<float> a{1.f};
  const std::vector<tensor_to_write> one{{"a", tensor_dtype::f32, {1}, bytes_of(a)}};
  ASSERT_TRUE(write_safetensors(dir.file("model.safetensors"), one).ok());
  auto by_dir = safetensors_checkpoint::open(dir.file(""));
  ASSERT_TRUE(by_dir.ok()) << by_dir.err().message;
  EXPECT_EQ(by_dir->names(), std::vector<std::string>{"a"});
  auto by_file = safetensors_checkpoint::open(dir.file("model.safetensors"));
  ASSERT_TRUE(by_file.ok());
  EXPECT_TRUE(by_file->contains("a"));

  scratch_dir empty;
  auto none = safetensors_checkpoint::open(empty.file(""));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.err().message.find(
                "neither model.safetensors.index.json nor model.safetensors"),
            std::string::npos);
}

TEST(SafetensorsCheckpointTest, IndexErrorsNameTheIndexShardAndTensor) {
  sharded s;
  const auto index = s.dir.file("model.safetensors.index.json");
  s.index(
      R"({"embed": "model-00001-of-00002.safetensors", "norm": "model-00009.safetensors"})");
  EXPECT_EQ(
      safetensors_checkpoint::open(index).err().message,
      index + ": weight_map: tensor 'norm' is in shard 'model-00009.safetensors', but " +
          s.dir.file("model-00009.safetensors") + " does not exist");

  s.index(R"({"embed": "model-00002-of-00002.safetensors"})");
  EXPECT_EQ(safetensors_checkpoint::open(index).err().message,
            index +
                ": weight_map: tensor 'embed' is in shard "
                "'model-00002-of-00002.safetensors', but that shard has no such tensor");

  s.index(R"({"embed": "../model-00001-of-00002.safetensors"})");
  EXPECT_EQ(
      safetensors_checkpoint::open(index).err().message,
      index +
          ": weight_map: tensor 'embed': shard '../model-00001-of-00002.safetensors' "
          "is not a file name inside the checkpoint directory");

  write_bytes(index, R"({"weight_map": [)");
  EXPECT_EQ(safetensors_checkpoint::open(index).err().message.rfind(
                index + ": not valid JSON", 0),
            0u);
  write_bytes(index, R"({"metadata": {}})");
  EXPECT_EQ(safetensors_checkpoint::open(index).err().message,
            index + ": expected an object with a \"weight_map\" object");

  // A corrupt shard is reported with the shard's own name.
  write_bytes(s.dir.file("model-00002-of-00002.safetensors"), "abc");
  s.index(R"({"norm": "model-00002-of-00002.safetensors"})");
  EXPECT_EQ(
      safetensors_checkpoint::open(index).err().message,
      s.dir.file("model-00002-of-00002.safetensors") +
          ": truncated: 3 bytes, but a safetensors file starts with an 8-byte header "
          "length");
}

}  // namespace
}  // namespace adarl
