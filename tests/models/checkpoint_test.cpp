#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "base/atomic_file.hpp"
#include "models/train/optimizer.hpp"
#include "models/weights/checkpoint.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

model_config small() {
  model_config c;
  c.vocab_size = 10;
  c.d_model = 8;
  c.n_layers = 1;
  c.n_heads = 2;
  c.d_ff = 16;
  c.max_len = 12;
  return c;
}

fs::path fresh_dir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("adarl_ckpt_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

void train_one_step(transformer& m, policy_optimizer& opt) {
  opt.zero_grad();
  auto tokens = torch::tensor({{1, 4, 5, 6}}, torch::kLong);
  m->forward(tokens, torch::ones({1, 4}, torch::kBool)).pow(2).mean().backward();
  opt.step();
}

TEST(CheckpointTest, RoundTripRestoresWeightsOptimizerAndStep) {
  const auto dir = fresh_dir("roundtrip");
  torch::manual_seed(3);
  transformer a(small());
  policy_optimizer opt_a(a, {});
  train_one_step(a, opt_a);
  ASSERT_TRUE(save_checkpoint(dir.string(), a, &opt_a, {1, small(), "abcdef"}).ok());
  EXPECT_FALSE(fs::exists(staging_path(dir.string())));

  torch::manual_seed(4);
  transformer b(small());
  policy_optimizer opt_b(b, {});
  auto meta = load_checkpoint(dir.string(), b, &opt_b);
  ASSERT_TRUE(meta.ok()) << meta.err().message;
  EXPECT_EQ(meta->step, 1);
  EXPECT_EQ(meta->charset, "abcdef");
  EXPECT_EQ(opt_b.steps(), 1);
  // Same weights and the same optimizer state: one more identical step agrees, bit for
  // bit (the state is read back exactly).
  train_one_step(a, opt_a);
  train_one_step(b, opt_b);
  for (size_t i = 0; i < a->parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(a->parameters()[i], b->parameters()[i])) << i;
  fs::remove_all(dir);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The optimizer state file depends on the state alone: two optimizers in the same
// state write the same bytes (torch::save named tensors by memory address, so two equal
// runs wrote different checkpoints). A damaged file is refused and changes nothing.
TEST(CheckpointTest, OptimizerStateBytesDependOnTheStateAlone) {
  const auto dir = fresh_dir("opt_bytes");
  fs::create_directories(dir);
  std::vector<std::string> files;
  for (int run = 0; run < 2; ++run) {
    torch::manual_seed(3);
    transformer m(small());
    policy_optimizer opt(m, {});
    train_one_step(m, opt);
    train_one_step(m, opt);
    const auto f = dir / ("opt" + std::to_string(run) + ".safetensors");
    ASSERT_TRUE(opt.save_state(f.string()));
    files.push_back(bytes_of(f));
  }
  EXPECT_EQ(files[0], files[1]);
  torch::manual_seed(5);
  transformer m(small());
  policy_optimizer opt(m, {});
  const auto f = dir / "opt0.safetensors";
  fs::resize_file(f, fs::file_size(f) - 4);
  auto r = opt.load_state(f.string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find(f.string()), std::string::npos) << r.err().message;
  EXPECT_EQ(opt.steps(), 0);
  EXPECT_TRUE(opt.adamw().state().empty());
  fs::remove_all(dir);
}

TEST(CheckpointTest, RefusesAnotherShapeNamingBoth) {
  const auto dir = fresh_dir("shape");
  transformer a(small());
  ASSERT_TRUE(save_checkpoint(dir.string(), a, nullptr, {0, small(), ""}).ok());
  auto other = small();
  other.d_model = 16;
  transformer b(other);
  auto r = load_checkpoint(dir.string(), b, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("d_model 8"), std::string::npos) << r.err().message;
  EXPECT_NE(r.err().message.find("d_model 16"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CheckpointTest, TruncatedOrCorruptFilesAreErrorsAndModelUnchanged) {
  const auto dir = fresh_dir("corrupt");
  transformer a(small());
  ASSERT_TRUE(save_checkpoint(dir.string(), a, nullptr, {0, small(), ""}).ok());
  const auto bin = dir / "model.bin";
  fs::resize_file(bin, fs::file_size(bin) / 2);
  torch::manual_seed(9);
  transformer b(small());
  const auto before = b->parameters()[0].clone();
  auto r = load_checkpoint(dir.string(), b, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("model.bin"), std::string::npos) << r.err().message;
  EXPECT_TRUE(torch::equal(b->parameters()[0], before));

  std::ofstream(dir / "meta.json") << "{ not json";
  auto bad_meta = load_checkpoint(dir.string(), b, nullptr);
  ASSERT_FALSE(bad_meta.ok());
  EXPECT_NE(bad_meta.err().message.find("meta.json"), std::string::npos);
  EXPECT_FALSE(load_checkpoint((dir / "missing").string(), b, nullptr).ok());
  fs::remove_all(dir);
}

// Issue 38: weights damaged at the same size loaded silently (NaN losses, held-out 0);
// meta.json's content hash of model.bin now refuses them, and verify_checkpoint (the SFT
// cache's check) says so without loading.
TEST(CheckpointTest, SameSizeDamageIsRefusedByTheContentHash) {
  const auto dir = fresh_dir("same-size");
  torch::manual_seed(5);
  transformer a(small());
  ASSERT_TRUE(save_checkpoint(dir.string(), a, nullptr, {0, small(), ""}).ok());
  auto meta = verify_checkpoint(dir.string());
  ASSERT_TRUE(meta.ok()) << meta.err().message;
  EXPECT_EQ(meta->model_hash.size(), 32u);
  const auto bin = dir / "model.bin";
  const auto size = fs::file_size(bin);
  {
    std::fstream f(bin, std::ios::in | std::ios::out | std::ios::binary);
    const auto at = std::streamoff(size - 5);
    char ch = 0;
    f.seekg(at);
    f.get(ch);
    f.seekp(at);
    f.put(char(ch ^ 0x40));
  }
  ASSERT_EQ(fs::file_size(bin), size);
  auto checked = verify_checkpoint(dir.string());
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.err().message.find("model.bin: damaged"), std::string::npos)
      << checked.err().message;
  transformer b(small());
  const auto before = b->parameters()[0].clone();
  auto r = load_checkpoint(dir.string(), b, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find("damaged"), std::string::npos) << r.err().message;
  EXPECT_TRUE(torch::equal(b->parameters()[0], before));
  fs::remove_all(dir);
}

// A disk that fills up (here: a file size limit, EFBIG once SIGXFSZ is ignored) while a
// checkpoint is written: the error names the file and the reason, the checkpoint already
// there is untouched and no half-written DIR.tmp stays.
TEST(CheckpointTest, AFailedWriteKeepsTheOldCheckpointAndLeavesNoTemporary) {
  const auto dir = fresh_dir("full");
  torch::manual_seed(3);
  transformer a(small());
  policy_optimizer opt(a, {});
  train_one_step(a, opt);
  ASSERT_TRUE(save_checkpoint(dir.string(), a, &opt, {1, small(), "abcdef"}).ok());
  const auto before = bytes_of(dir / "model.bin");
  train_one_step(a, opt);
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  rlimit lower = saved;
  lower.rlim_cur = before.size() / 2;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lower), 0);
  auto r = save_checkpoint(dir.string(), a, &opt, {2, small(), "abcdef"});
  setrlimit(RLIMIT_FSIZE, &saved);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.err().message.find(staging_path(dir.string()) + "/model.bin"), std::string::npos)
      << r.err().message;
  EXPECT_NE(r.err().message.find("File too large"), std::string::npos) << r.err().message;
  EXPECT_FALSE(fs::exists(staging_path(dir.string())));
  EXPECT_EQ(bytes_of(dir / "model.bin"), before);
  auto meta = read_checkpoint_meta(dir.string());
  ASSERT_TRUE(meta.ok()) << meta.err().message;
  EXPECT_EQ(meta->step, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adarl
