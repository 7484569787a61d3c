// The files of a checkpoint beyond the engine's: carried steps, manifest, and the
// choice of the checkpoint to resume from (actors/checkpoint_files.hpp).
#include "actors/checkpoint_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

namespace adarl {
namespace {

namespace fs = std::filesystem;

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("adarl_ckpt_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A complete checkpoint directory with one engine file.
std::string make_checkpoint(const fs::path& root, uint64_t version, int64_t through) {
  const auto dir = (root / "checkpoints" / checkpoint_name(version)).string();
  fs::create_directories(dir);
  std::ofstream(dir + "/model.bin") << "weights of version " << version;
  EXPECT_TRUE(write_manifest(dir, version, through));
  return dir;
}

TEST(CheckpointFilesTest, CarriedStepsRoundTripExactly) {
  carried_steps s;
  train_group g;
  g.step = 7;
  g.slot = 3;
  g.prompt_id = 41;
  g.trainable = true;
  g.advantages = {0.1f, -0.30000001f};
  for (int i = 0; i < 2; ++i) {
    completion c;
    c.order = {7, 3, uint32_t(i), 41, 0xfeedbeefcafe0000ull + i, 0, false, 6};
    c.tokens = {1, 2, 3 + i};
    c.logprobs = {-0.1234567f, -1e-30f, -7.5f};
    c.ended = i == 0;
    c.version = 6;
    c.reward = float(i);
    c.reason = i ? "" : "wrong_value";
    g.samples.push_back(c);
  }
  s.groups[7].push_back(g);
  s.groups[9].push_back(g);  // outside the range written
  step_report r;
  r.step = 7;
  r.real_reward = 0.123456789;
  r.exits = {1, 2, 3};
  r.zero_reasons = {"wrong_value"};
  r.zero_counts = {5};
  r.visit_prompts = {3, 1};
  r.visit_predicted = {0.25, -1};
  r.visit_samples = {4, 0};
  r.visit_positives = {1, 0};
  r.visit_exits = {4, 7};
  s.reports[7] = r;
  const auto file = (fresh("carried") / "carried.cbor").string();
  ASSERT_TRUE(write_carried_steps(file, s, /*from=*/7, /*through=*/8));
  auto back = read_carried_steps(file);
  ASSERT_TRUE(back) << back.err().message;
  ASSERT_EQ(back->groups.size(), 1u);
  const auto& b = back->groups.at(7).at(0);
  EXPECT_EQ(b.advantages, g.advantages);
  ASSERT_EQ(b.samples.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(b.samples[i].logprobs, g.samples[i].logprobs);  // bit-exact floats
    EXPECT_EQ(b.samples[i].tokens, g.samples[i].tokens);
    EXPECT_EQ(b.samples[i].order.stream, g.samples[i].order.stream);
    EXPECT_EQ(b.samples[i].reason, g.samples[i].reason);
  }
  EXPECT_EQ(back->reports.at(7).real_reward, 0.123456789);
  EXPECT_EQ(back->reports.at(7).zero_counts, (std::vector<uint32_t>{5}));
  EXPECT_EQ(back->reports.at(7).visit_prompts, r.visit_prompts);
  EXPECT_EQ(back->reports.at(7).visit_predicted, r.visit_predicted);
  EXPECT_EQ(back->reports.at(7).visit_samples, r.visit_samples);
  EXPECT_EQ(back->reports.at(7).visit_positives, r.visit_positives);
  EXPECT_EQ(back->reports.at(7).visit_exits, r.visit_exits);
  // Truncated: an error naming the file, never a partial state.
  fs::resize_file(file, fs::file_size(file) / 2);
  auto torn = read_carried_steps(file);
  ASSERT_FALSE(torn);
  EXPECT_EQ(torn.err().message.rfind(file + ": corrupt carried steps", 0), 0u);
}

// A distinct value per field of the list (k = the field's position).
void fill(uint64_t& v, int k) { v = 1000 + k; }
void fill(uint32_t& v, int k) { v = 100 + k; }
void fill(double& v, int k) { v = 0.1 + k / 7.0; }
void fill(std::string& v, int k) { v = "field" + std::to_string(k); }
template <class T>
void fill(std::vector<T>& v, int k) {
  v.resize(2);
  fill(v[0], k);
  fill(v[1], k + 50);
}

// Every field of step_report's field list is stored and read back exactly, and a field a
// later version added is optional in the file: an older checkpoint without it still reads.
TEST(CheckpointFilesTest, EveryReportFieldOfTheListRoundTrips) {
  step_report r;
  int k = 0;
  for_each_field(step_report_fields, [&](const auto& f) { fill(r.*(f.member), k++); });
  carried_steps s;
  s.reports[r.step] = r;
  const auto dir = fresh("fields");
  const auto file = (dir / "carried.cbor").string();
  ASSERT_TRUE(write_carried_steps(file, s, 0, int64_t(r.step)));
  auto back = read_carried_steps(file);
  ASSERT_TRUE(back) << back.err().message;
  const step_report& b = back->reports.at(r.step);
  for_each_field(step_report_fields,
                 [&](const auto& f) { EXPECT_TRUE(b.*(f.member) == r.*(f.member)) << f.name; });

  // Drop every optional field (as an older version wrote it), then one required field.
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  auto j = nlohmann::json::from_cbor(bytes);
  for_each_field(step_report_fields, [&](const auto& f) {
    if (!f.has(field_required)) j["reports"][0].erase(f.name);
  });
  const auto write = [&](const nlohmann::json& doc) {
    const auto cbor = nlohmann::json::to_cbor(doc);
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(cbor.data()), std::streamsize(cbor.size()));
  };
  write(j);
  auto older = read_carried_steps(file);
  ASSERT_TRUE(older) << older.err().message;
  EXPECT_EQ(older->reports.at(r.step).zero_counts, r.zero_counts);
  EXPECT_TRUE(older->reports.at(r.step).visit_prompts.empty());
  EXPECT_EQ(older->reports.at(r.step).prior_brier, 0.0);
  j["reports"][0].erase("result_tokens");
  write(j);
  auto broken = read_carried_steps(file);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.err().message.find("result_tokens"), std::string::npos)
      << broken.err().message;
}

TEST(CheckpointFilesTest, ManifestCatchesAMissingOrTruncatedFile) {
  const auto root = fresh("manifest");
  const auto dir = make_checkpoint(root, 4, 4);
  auto m = read_manifest(dir);
  ASSERT_TRUE(m) << m.err().message;
  EXPECT_EQ(m->version, 4u);
  EXPECT_EQ(m->through, 4);
  fs::resize_file(dir + "/model.bin", 3);
  auto damaged = read_manifest(dir);
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.err().message.find("model.bin has 3 bytes"), std::string::npos)
      << damaged.err().message;
  fs::remove(dir + "/model.bin");
  EXPECT_NE(read_manifest(dir).err().message.find("model.bin is missing"), std::string::npos);
}

// Issue 38: damage at the same size (a garbled tracker.json, flipped weight bytes) is
// caught by each file's content hash, and a resume passes over that checkpoint.
TEST(CheckpointFilesTest, ManifestCatchesSameSizeDamageAndResumeFallsBack) {
  const auto root = fresh("same-size");
  const auto two = make_checkpoint(root, 2, 2);
  const auto four = make_checkpoint(root, 4, 4);
  std::ofstream(four + "/tracker.json") << R"({"next_step": 5})";
  ASSERT_TRUE(write_manifest(four, 4, 4));
  std::ofstream(root / "checkpoints" / "latest") << "step-000004\n";
  ASSERT_TRUE(read_manifest(four));
  {  // the same number of bytes, other content
    std::fstream f(four + "/tracker.json", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3);
    f.put('X');
  }
  auto damaged = read_manifest(four);
  ASSERT_FALSE(damaged);
  EXPECT_NE(damaged.err().message.find("damaged checkpoint (tracker.json's content differs"),
            std::string::npos)
      << damaged.err().message;
  std::string note;
  auto r = resolve_checkpoint(root.string(), &note);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(*r, two);
  EXPECT_NE(note.find("step-000004: damaged checkpoint"), std::string::npos) << note;
  // A manifest written before the hashes (sizes alone) is still read, by size.
  std::ofstream(two + "/checkpoint.json")
      << R"({"format": "adarl-checkpoint-manifest-1", "version": 2, "through": 2, )"
      << R"("files": {"model.bin": )" << fs::file_size(two + "/model.bin") << "}}";
  auto old = read_manifest(two);
  ASSERT_TRUE(old) << old.err().message;
  ASSERT_EQ(old->files.size(), 1u);
  EXPECT_TRUE(old->files[0].hash.empty());
}

TEST(CheckpointFilesTest, ResumeFallsBackToTheNewestCompleteCheckpoint) {
  const auto root = fresh("resolve");
  make_checkpoint(root, 2, 2);
  const auto four = make_checkpoint(root, 4, 5);
  std::ofstream(root / "checkpoints" / "latest") << "step-000004\n";
  auto r = resolve_checkpoint(root.string());
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(*r, four);
  // A checkpoint being assembled when the run was killed is not a candidate; a
  // damaged newest one is passed over, with a note saying so.
  fs::create_directories(root / "checkpoints" / "step-000006.partial");
  fs::resize_file(four + "/model.bin", 1);
  std::string note;
  r = resolve_checkpoint(root.string(), &note);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(*r, (root / "checkpoints" / "step-000002").string());
  EXPECT_NE(note.find("step-000004: damaged checkpoint"), std::string::npos) << note;
  // A checkpoint directory given directly must itself be complete.
  auto direct = resolve_checkpoint(four);
  ASSERT_FALSE(direct);
  EXPECT_NE(direct.err().message.find("damaged"), std::string::npos);
  fs::remove_all(root / "checkpoints" / "step-000002");
  auto none = resolve_checkpoint(root.string());
  ASSERT_FALSE(none);
  EXPECT_NE(none.err().message.find("no complete checkpoint"), std::string::npos)
      << none.err().message;
}

// The tracker fills a step report from its step_summary through one source list
// (messages/messages.hpp step_report_sources): every listed member arrives, converted.
TEST(CheckpointFilesTest, AStepReportIsFilledFromItsSummaryThroughTheSourceList) {
  step_summary s;
  s.prompts = 12;
  s.trainable = 10;
  s.zero_gradient = 3;
  s.samples = 96;
  s.tokens = 960;
  s.kept_samples = 80;
  s.signal_samples = 56;
  s.max_samples = 16;
  s.first_round_sum.add(6.0);  // real_reward 0.5
  s.exits[1] = 4;
  s.exit_samples[1] = 40;
  s.rounds = {0, 7, 5};
  s.rate_prompts[2] = 9;
  s.rate_samples[2] = 72;
  s.prior_fit.add(0.25, 8, 2);
  s.prior_fit_first_seen.add(0.5, 4, 1);
  s.reliability_observed[3] = 1.5;
  s.reliability_samples[3] = 4;
  step_report r;
  fill_from(step_report_sources, r, s);
  EXPECT_EQ(r.prompts, 12u);
  EXPECT_EQ(r.trainable, 10u);
  EXPECT_EQ(r.zero_gradient, 3u);
  EXPECT_EQ(r.samples, 96u);
  EXPECT_EQ(r.tokens, 960u);
  EXPECT_EQ(r.kept_samples, 80u);
  EXPECT_EQ(r.signal_samples, 56u);
  EXPECT_EQ(r.max_samples, 16u);
  EXPECT_EQ(r.real_reward, 0.5);
  ASSERT_EQ(r.exits.size(), s.exits.size());
  EXPECT_EQ(r.exits[1], 4u);
  ASSERT_EQ(r.exit_samples.size(), s.exit_samples.size());
  EXPECT_EQ(r.exit_samples[1], 40u);
  EXPECT_EQ(r.rounds, (std::vector<uint32_t>{0, 7, 5}));
  ASSERT_EQ(r.rate_prompts.size(), step_summary::rate_bins);
  EXPECT_EQ(r.rate_prompts[2], 9u);
  EXPECT_EQ(r.rate_samples[2], 72u);
  EXPECT_EQ(r.prior_samples, 8u);
  EXPECT_EQ(r.prior_brier, double(s.prior_fit.brier));
  EXPECT_GT(r.prior_brier, 0.0);
  EXPECT_EQ(r.prior_log_loss, double(s.prior_fit.log_loss));
  EXPECT_EQ(r.first_seen_samples, 4u);
  EXPECT_EQ(r.first_seen_prompts, 1u);
  EXPECT_EQ(r.first_seen_brier, double(s.prior_fit_first_seen.brier));
  EXPECT_EQ(r.first_seen_log_loss, double(s.prior_fit_first_seen.log_loss));
  ASSERT_EQ(r.reliability_observed.size(), step_summary::rate_bins);
  EXPECT_EQ(r.reliability_observed[3], 1.5);
  EXPECT_EQ(r.reliability_samples[3], 4u);
  EXPECT_EQ(r.reliability_predicted.size(), step_summary::rate_bins);
  // Every field of the report is either sourced from the summary or one of the 17 the
  // tracker fills from elsewhere (step, budget totals, counters, zero reasons, visits):
  // a new field in the list without a source fails here.
  EXPECT_EQ(std::tuple_size_v<decltype(step_report_sources)> + 17,
            std::tuple_size_v<decltype(step_report_fields)>);
}

TEST(CheckpointFilesTest, CarriedReportsOfAnOldCheckpointGetTheirTotalsInStepOrder) {
  carried_steps c;
  for (uint64_t step : {4, 5, 6}) {
    step_report r;
    r.step = step;
    r.samples = 10 * step;
    r.tokens = 100 * step;
    c.reports[step] = r;
  }
  // Resumed at version 5: step 4 was trained before, its report is left as it is.
  auto last = fill_carried_totals(c, 5, {1000, 9000});
  ASSERT_TRUE(last);
  EXPECT_EQ(c.reports[4].cumulative_samples, 0u);
  EXPECT_EQ(c.reports[5].cumulative_samples, 1050u);
  EXPECT_EQ(c.reports[5].cumulative_tokens, 9500u);
  EXPECT_EQ(c.reports[6].cumulative_samples, 1110u);
  EXPECT_EQ(c.reports[6].cumulative_tokens, 10100u);
  EXPECT_EQ(last->step.samples, 60u);
  EXPECT_EQ(last->step.tokens, 600u);
  EXPECT_EQ(last->through.samples, 1110u);
  EXPECT_EQ(last->through.tokens, 10100u);
  EXPECT_FALSE(fill_carried_totals(c, 7, {1000, 9000}));
}

}  // namespace
}  // namespace adarl
