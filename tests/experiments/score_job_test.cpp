// experiments/score_job.hpp: `adarl model score` as a call, on a tiny random Qwen2
// checkpoint (tests/formats/tiny_hf.hpp). tests/cli/hf_model_score.sh holds the scores
// against an independent reference through the command.
#include "experiments/score_job.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/formats/tiny_hf.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

/// A tiny checkpoint written once for the tests of this file.
const std::string& tiny_dir() {
  static const std::string dir = [] {
    const std::string d = (fs::temp_directory_path() / "adarl-score-job-test").string();
    fs::remove_all(d);
    test::tiny_hf_spec s;
    s.real_tokenizer = false;
    s.dtype = tensor_dtype::f32;
    test::write_tiny_hf(d, s);
    return d;
  }();
  return dir;
}

const std::string kLines =
    "{\"prompt_ids\": [1, 2, 3], \"completion_ids\": [4, 5]}\n"
    "\n"
    "{\"prompt_ids\": [7], \"completion_ids\": [8, 9, 10, 11]}\n"
    "{\"prompt\": \"the sum\", \"completion\": \" is 12\"}\n";

std::vector<std::vector<double>> scored(uint32_t batch, score_totals* totals = nullptr) {
  score_request r;
  r.dir = tiny_dir();
  r.batch = batch;
  std::istringstream in(kLines);
  std::vector<std::vector<double>> rows;
  auto t = score_lines(r, in, "lines.jsonl",
                       [&](const std::vector<double>& row) { rows.push_back(row); });
  EXPECT_TRUE(t) << t.err().message;
  if (t && totals) *totals = *t;
  return rows;
}

TEST(ScoreJobTest, EachLineGetsItsCompletionsLogProbsInInputOrder) {
  score_totals totals;
  const auto rows = scored(8, &totals);
  ASSERT_EQ(rows.size(), 3u);  // the blank line is skipped
  EXPECT_EQ(rows[0].size(), 2u);
  EXPECT_EQ(rows[1].size(), 4u);
  EXPECT_FALSE(rows[2].empty());
  double sum = 0;
  size_t tokens = 0;
  for (const auto& row : rows)
    for (double v : row) {
      EXPECT_LT(v, 0.0);
      EXPECT_TRUE(std::isfinite(v));
      sum += v;
      ++tokens;
    }
  EXPECT_EQ(totals.lines, 3u);
  EXPECT_EQ(totals.tokens, tokens);
  EXPECT_NEAR(totals.logp_sum, sum, 1e-9);
  EXPECT_EQ(totals.model_type, "qwen2");
}

TEST(ScoreJobTest, TheBatchDoesNotChangeTheScores) {
  // Padding a line beside longer ones must not move its log-probs.
  const auto one = scored(1), all = scored(3);
  ASSERT_EQ(one.size(), all.size());
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].size(), all[i].size());
    for (size_t k = 0; k < one[i].size(); ++k) EXPECT_NEAR(one[i][k], all[i][k], 1e-4);
  }
}

TEST(ScoreJobTest, BadLinesAreNamedAndNothingIsScored) {
  score_request r;
  r.dir = tiny_dir();
  std::istringstream in(
      "{\"prompt_ids\": [1], \"completion_ids\": [2]}\n"
      "{\"prompt_ids\": [1], \"completion_ids\": [99999999]}\n"
      "{\"prompt_ids\": [], \"completion_ids\": [1]}\n"
      "not json\n");
  size_t called = 0;
  auto t = score_lines(r, in, "bad.jsonl", [&](const std::vector<double>&) { ++called; });
  ASSERT_FALSE(t);
  EXPECT_NE(
      t.err().message.find("bad.jsonl:2: field \"completion_ids\": expected ids in [0, "),
      std::string::npos)
      << t.err().message;
  EXPECT_NE(t.err().message.find("bad.jsonl:3: the prompt has no tokens"),
            std::string::npos);
  EXPECT_NE(t.err().message.find("bad.jsonl:4:"), std::string::npos);
  EXPECT_EQ(called, 0u);
}

TEST(ScoreJobTest, BadRequestValuesNameTheirKey) {
  std::istringstream in("");
  const auto none = [](const std::vector<double>&) {};
  score_request r;
  r.dir = tiny_dir();
  r.batch = 0;
  auto t = score_lines(r, in, "x", none);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.err().message.rfind("batch:", 0), 0u) << t.err().message;
  r.batch = 2;
  r.device = "tpu";
  t = score_lines(r, in, "x", none);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.err().message.rfind("device:", 0), 0u) << t.err().message;
  r.device = "cpu";
  r.dir = tiny_dir() + "/no-such-dir";
  t = score_lines(r, in, "x", none);
  ASSERT_FALSE(t);
  EXPECT_NE(t.err().message.find("no-such-dir"), std::string::npos) << t.err().message;
}

}  // namespace
}  // namespace adarl
