#include "base/atomic_file.hpp"
#include "engines/sim/sim_engines.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/random_keys.hpp"

namespace adarl {
namespace {

namespace fs = std::filesystem;

tokenizer make_tokenizer() {
  return *tokenizer::from_charset(tokenizer::default_charset());
}

/// A world of `train` training and `held_out` held-out prompts; prompt x answers
/// "a<x>". With sd_logit 0 every prompt starts at the pass rate sigmoid(mean_logit).
sim_world make_world(uint32_t train, uint32_t held_out, double mean_logit = -0.5,
                     double sd_logit = 1.0) {
  sim_world w;
  w.model.mean_logit = mean_logit;
  w.model.sd_logit = sd_logit;
  for (uint32_t x = 0; x < train + held_out; ++x)
    w.answers.push_back("a" + std::to_string(x));
  w.train = train;
  w.seed = 11;
  return w;
}

sim_latency latency(uint32_t capacity, uint32_t min_steps = 1, double tail = 0,
                    uint32_t max_steps = 64) {
  sim_latency l;
  l.capacity = capacity;
  l.min_steps = min_steps;
  l.tail = tail;
  l.max_steps = max_steps;
  return l;
}

generation_job job(uint64_t ticket, uint64_t prompt, uint64_t stream,
                   bool greedy = false) {
  generation_job j;
  j.ticket = ticket;
  j.prompt_id = prompt;
  j.stream = stream;
  j.greedy = greedy;
  return j;
}

/// The documented length rule: floor(min_steps * (1 - u)^(-1/tail)) in [1, max_steps].
uint32_t expected_steps(const sim_latency& l, uint64_t stream) {
  const double u = keyed_uniform(stream, 1, 7, 0);
  double s =
      l.tail > 0 ? std::floor(l.min_steps * std::pow(1 - u, -1 / l.tail)) : l.min_steps;
  return static_cast<uint32_t>(std::clamp(s, 1.0, static_cast<double>(l.max_steps)));
}

std::vector<int32_t> completion(const std::string& text) {
  auto ids = *make_tokenizer().encode(text, "test");
  ids.push_back(tokenizer::eos);
  return ids;
}

/// Admits every job and steps until all finished; results by ticket.
std::map<uint64_t, generation_result> run_all(generation_engine& e,
                                              const std::vector<generation_job>& jobs) {
  std::map<uint64_t, generation_result> out;
  size_t next = 0;
  std::vector<generation_result> done;
  while (out.size() < jobs.size()) {
    while (next < jobs.size() && e.active() < e.capacity()) e.admit(jobs[next++]);
    done.clear();
    e.step(done);
    for (auto& r : done) out[r.ticket] = std::move(r);
  }
  return out;
}

TEST(SimEnginesTest, ContinuousBatchingRespectsCapacityAndDrawnLengths) {
  const auto world = make_world(4, 0);
  const auto lat =
      latency(/*capacity=*/3, /*min_steps=*/2, /*tail=*/1.0, /*max_steps=*/12);
  auto e = make_sim_generator(world, lat, make_tokenizer());
  ASSERT_EQ(e->capacity(), 3u);
  std::vector<generation_job> jobs;
  for (uint64_t t = 0; t < 24; ++t) jobs.push_back(job(t, t % 4, mix_keys(5, t)));

  std::map<uint64_t, uint64_t> admitted_at, finished_at;
  std::vector<generation_result> done;
  size_t next = 0;
  uint64_t step = 0, sum_lengths = 0;
  std::map<uint32_t, int> lengths_seen;
  while (finished_at.size() < jobs.size()) {
    // A finished row frees its slot at once: the engine is refilled to capacity.
    while (next < jobs.size() && e->active() < e->capacity()) {
      admitted_at[jobs[next].ticket] = step;
      e->admit(jobs[next++]);
    }
    ASSERT_LE(e->active(), e->capacity());
    if (next < jobs.size()) {
      ASSERT_EQ(e->active(), e->capacity());
    }
    done.clear();
    e->step(done);
    ++step;
    for (const auto& r : done) finished_at[r.ticket] = step;
    ASSERT_LT(step, 1000u);
  }
  for (const auto& j : jobs) {
    const uint32_t want = expected_steps(lat, j.stream);
    EXPECT_EQ(finished_at[j.ticket] - admitted_at[j.ticket], want)
        << "ticket " << j.ticket;
    sum_lengths += want;
    ++lengths_seen[want];
  }
  EXPECT_GT(lengths_seen.size(), 2u);            // The tail spreads the lengths...
  EXPECT_LE(lengths_seen.rbegin()->first, 12u);  // ...up to the cap.
  EXPECT_GE(lengths_seen.begin()->first, 2u);
  // Rows ran concurrently: far fewer steps than running them one by one.
  EXPECT_LT(step, sum_lengths / 2);
  EXPECT_EQ(e->active(), 0u);
}

TEST(SimEnginesTest, WithoutTailEveryRowTakesMinSteps) {
  auto e =
      make_sim_generator(make_world(2, 0), latency(4, /*min_steps=*/3), make_tokenizer());
  for (uint64_t t = 0; t < 4; ++t) e->admit(job(t, t % 2, t * 31 + 1));
  std::vector<generation_result> done;
  e->step(done);
  e->step(done);
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(e->active(), 4u);
  e->step(done);
  ASSERT_EQ(done.size(), 4u);
  for (uint64_t t = 0; t < 4; ++t) EXPECT_EQ(done[t].ticket, t);  // Admission order.
}

TEST(SimEnginesTest, UnknownPromptFinishesEmptyAtTheNextStep) {
  auto e =
      make_sim_generator(make_world(2, 1), latency(4, /*min_steps=*/5), make_tokenizer());
  e->admit(job(7, /*prompt=*/3, 1));
  e->admit(job(8, /*prompt=*/1000000, 2));
  e->admit(job(9, /*prompt=*/0, 3));
  std::vector<generation_result> done;
  e->step(done);
  ASSERT_EQ(done.size(), 2u);
  for (const auto& r : done) {
    EXPECT_TRUE(r.tokens.empty());
    EXPECT_TRUE(r.logprobs.empty());
    EXPECT_FALSE(r.ended);
  }
  EXPECT_EQ(e->active(), 1u);
}

TEST(SimEnginesTest, ResultsAreAFunctionOfTheStreams) {
  const auto world = make_world(8, 2);
  const auto lat = latency(5, 1, 1.5, 20);
  std::vector<generation_job> jobs;
  for (uint64_t t = 0; t < 60; ++t) jobs.push_back(job(t, t % 10, mix_keys(99, t)));
  auto a = make_sim_generator(world, lat, make_tokenizer());
  auto b = make_sim_generator(world, latency(17, 1, 1.5, 20), make_tokenizer());
  const auto ra = run_all(*a, jobs);
  std::reverse(jobs.begin(), jobs.end());  // Another order and batch size.
  const auto rb = run_all(*b, jobs);
  ASSERT_EQ(ra.size(), 60u);
  int correct = 0;
  for (const auto& [t, r] : ra) {
    EXPECT_EQ(r.tokens, rb.at(t).tokens);
    EXPECT_EQ(r.logprobs, rb.at(t).logprobs);
    EXPECT_TRUE(r.ended);
    EXPECT_EQ(r.tokens.size(), r.logprobs.size());
    correct += r.tokens != completion("?");
  }
  EXPECT_GT(correct, 0);  // Both outcomes occur, so the stream decides.
  EXPECT_LT(correct, 60);
}

TEST(SimEnginesTest, FractionCorrectMatchesThePassRate) {
  const double p = 0.3;
  // sd 0: the training prompt and the held-out one both have pass rate p.
  const auto world = make_world(1, 1, std::log(p / (1 - p)), /*sd_logit=*/0);
  auto e = make_sim_generator(world, latency(4000), make_tokenizer());
  for (uint64_t prompt : {0, 1}) {
    std::vector<generation_job> jobs;
    for (uint64_t t = 0; t < 4000; ++t)
      jobs.push_back(job(t, prompt, mix_keys(prompt + 3, t)));
    const auto results = run_all(*e, jobs);
    const auto right = completion("a" + std::to_string(prompt)), wrong = completion("?");
    int correct = 0;
    for (const auto& [t, r] : results) {
      ASSERT_TRUE(r.tokens == right || r.tokens == wrong);
      const bool ok = r.tokens == right;
      correct += ok;
      EXPECT_NEAR(r.logprobs[0], std::log(ok ? p : 1 - p), 1e-5);
      for (size_t i = 1; i < r.logprobs.size(); ++i) EXPECT_EQ(r.logprobs[i], 0.f);
    }
    // Standard error sqrt(0.21 / 4000) = 0.0072; 4.5 of them.
    EXPECT_NEAR(correct / 4000.0, p, 0.033) << "prompt " << prompt;
  }
}

TEST(SimEnginesTest, GreedyIsCorrectExactlyWhenThePassRateExceedsHalf) {
  for (double p : {0.3, 0.7}) {
    auto e = make_sim_generator(make_world(1, 0, std::log(p / (1 - p)), 0), latency(64),
                                make_tokenizer());
    std::vector<generation_job> jobs;
    for (uint64_t t = 0; t < 64; ++t)
      jobs.push_back(job(t, 0, mix_keys(1, t), /*greedy=*/true));
    for (const auto& [t, r] : run_all(*e, jobs))
      EXPECT_EQ(r.tokens, completion(p > 0.5 ? "a0" : "?")) << "p " << p;
  }
}

struct other_weights : policy_weights {};

TEST(SimEnginesTest, LoadRejectsOtherKindsAndShapes) {
  const auto world = make_world(3, 1);
  auto e = make_sim_generator(world, latency(4, 2), make_tokenizer());
  auto other = std::make_shared<other_weights>();
  other->version = 9;
  EXPECT_FALSE(e->load(other).ok());
  EXPECT_FALSE(e->load(nullptr).ok());
  EXPECT_FALSE(e->load(sim_initial_weights(make_world(4, 1))).ok());
  EXPECT_EQ(e->version(), 0u);

  e->admit(job(1, 0, 1));
  auto w = std::make_shared<sim_weights>(sim_initial_weights(world)->policy);
  w->version = 5;
  ASSERT_TRUE(e->load(w).ok());
  EXPECT_EQ(e->version(), 5u);
  e->admit(job(2, 0, 2));
  std::vector<generation_result> done;
  e->step(done);
  e->step(done);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].version, 0u);  // Admitted before the load.
  EXPECT_EQ(done[1].version, 5u);
}

train_sample sample(uint64_t prompt, float reward, float advantage, size_t tokens = 3) {
  train_sample s;
  s.prompt_id = prompt;
  s.completion.assign(tokens, 5);
  s.behaviour_logprobs.assign(tokens, 0.f);
  s.reward = reward;
  s.advantage = advantage;
  return s;
}

TEST(SimEnginesTest, LearnerRaisesThePassRateOfRewardedPrompts) {
  const auto world = make_world(4, 2);
  auto learner = make_sim_learner(world);
  const auto before = std::dynamic_pointer_cast<const sim_weights>(learner->snapshot());
  ASSERT_TRUE(before);
  EXPECT_EQ(before->version, 0u);

  // An empty batch is a no-op step: it counts as a version, the policy stays.
  auto idle = make_sim_learner(world);
  auto empty = idle->train({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->samples, 0u);
  EXPECT_EQ(idle->version(), 1u);

  // Prompt 2: two correct samples with positive advantage, two wrong with negative.
  const std::vector<train_sample> batch{sample(2, 1, 0.5f, 4), sample(2, 1, 0.5f, 2),
                                        sample(2, 0, -0.5f), sample(2, 0, -0.5f),
                                        sample(4, 1, 1.f)};  // Held out: skipped.
  auto stats = learner->train(batch);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(learner->version(), 1u);
  EXPECT_EQ(stats->samples, 5u);
  EXPECT_EQ(stats->tokens, 4u + 2u + 3u + 3u + 3u);
  EXPECT_GT(stats->grad_norm, 0.0);
  const auto after = std::dynamic_pointer_cast<const sim_weights>(learner->snapshot());
  ASSERT_TRUE(after);
  EXPECT_EQ(after->version, 1u);
  EXPECT_GT(after->policy.pass_rate(2), before->policy.pass_rate(2));
  EXPECT_GT(after->policy.adjustment(2), 0.0);
  EXPECT_GT(after->policy.skill(), 0.0);

  // A generator loading the snapshot answers with the new pass rate.
  auto e = make_sim_generator(world, latency(2), make_tokenizer());
  ASSERT_TRUE(e->load(after).ok());
  EXPECT_EQ(e->version(), 1u);
}

TEST(SimEnginesTest, UpdatesPerStepSplitTheBatchIntoUpdatesInOrder) {
  // updates_per_step 2 on [x, x, y, y] is the update on [x, x] then on [y, y], in one step.
  const auto world = make_world(4, 2);
  const std::vector<train_sample> x{sample(0, 1, 0.5f), sample(0, 0, -0.5f)};
  const std::vector<train_sample> y{sample(1, 1, 0.5f), sample(1, 0, -0.5f)};
  std::vector<train_sample> both = x;
  both.insert(both.end(), y.begin(), y.end());
  auto two = make_sim_learner(world, 2);
  auto one = make_sim_learner(world);
  auto s = two->train(both);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->updates, 2u);
  EXPECT_EQ(two->version(), 1u);
  ASSERT_TRUE(one->train(x).ok());
  auto last = one->train(y);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->updates, 1u);
  const auto a = std::dynamic_pointer_cast<const sim_weights>(two->snapshot());
  const auto b = std::dynamic_pointer_cast<const sim_weights>(one->snapshot());
  EXPECT_EQ(a->policy.serialize(), b->policy.serialize());
  // One update on the whole batch differs.
  auto whole = make_sim_learner(world);
  ASSERT_TRUE(whole->train(both).ok());
  const auto c = std::dynamic_pointer_cast<const sim_weights>(whole->snapshot());
  EXPECT_NE(a->policy.serialize(), c->policy.serialize());
}

const sim_weights& weights_of(learner_engine& l) {
  static std::shared_ptr<const sim_weights> keep;
  keep = std::dynamic_pointer_cast<const sim_weights>(l.snapshot());
  return *keep;
}

std::string temp_dir(const std::string& name) {
  const auto d = fs::path(::testing::TempDir()) /
                 ("sim_engines_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  return d.string();
}

TEST(SimEnginesTest, SaveAndRestoreRoundTripTheWholeState) {
  const auto world = make_world(5, 3);
  auto a = make_sim_learner(world);
  const std::vector<train_sample> batch{sample(1, 1, 1.f), sample(1, 0, -1.f),
                                        sample(3, 1, 0.7f), sample(3, 0, -0.3f)};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a->train(batch).ok());
  const auto dir = temp_dir("round_trip");
  ASSERT_TRUE(a->save(dir).ok());
  EXPECT_TRUE(fs::exists(fs::path(dir) / "sim_policy.txt"));
  EXPECT_FALSE(fs::exists(staging_path(dir)));
  ASSERT_TRUE(a->save(dir).ok());  // Over an existing checkpoint.

  auto b = make_sim_learner(world);
  ASSERT_TRUE(b->restore(dir).ok());
  EXPECT_EQ(b->version(), 3u);
  // Adam's moments came back too: the next step is identical.
  ASSERT_TRUE(a->train(batch).ok());
  ASSERT_TRUE(b->train(batch).ok());
  const auto pa = weights_of(*a).policy;
  const auto pb = weights_of(*b).policy;
  EXPECT_EQ(pa.skill(), pb.skill());
  for (uint64_t x = 0; x < 5; ++x) EXPECT_EQ(pa.pass_rate(x), pb.pass_rate(x));
  for (uint32_t i = 0; i < 3; ++i)
    EXPECT_EQ(pa.held_out_pass_rate(i), pb.held_out_pass_rate(i));
  EXPECT_EQ(pa.serialize(), pb.serialize());
  EXPECT_EQ(b->version(), 4u);
  fs::remove_all(dir);
}

TEST(SimEnginesTest, CorruptCheckpointIsAnErrorNamingTheFile) {
  const auto world = make_world(4, 1);
  auto a = make_sim_learner(world);
  ASSERT_TRUE(a->train({sample(0, 1, 1.f), sample(0, 0, -1.f)}).ok());
  const auto dir = temp_dir("corrupt");
  ASSERT_TRUE(a->save(dir).ok());
  const auto file = (fs::path(dir) / "sim_policy.txt").string();
  std::string text;
  {
    std::ifstream in(file);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto b = make_sim_learner(world);
  // Every truncation, and a few edits, fail without changing the learner.
  std::vector<std::string> bad;
  for (size_t n = 0; n + 1 < text.size(); n += 11) bad.push_back(text.substr(0, n));
  bad.push_back(text.substr(0, text.size() - 4));  // Cuts "end".
  std::string edited = text;
  edited.replace(edited.find("skill "), 6, "skil ");
  bad.push_back(edited);
  edited = text;
  edited.replace(edited.find("adjust "), 8, "adjust 99");
  bad.push_back(edited);
  for (const auto& t : bad) {
    { std::ofstream(file, std::ios::trunc) << t; }
    auto r = b->restore(dir);
    ASSERT_FALSE(r.ok()) << "accepted: " << t;
    EXPECT_NE(r.err().message.find("sim_policy.txt"), std::string::npos)
        << r.err().message;
    EXPECT_EQ(b->version(), 0u);
  }
  // A checkpoint of another world is an error too.
  auto c = make_sim_learner(make_world(6, 1));
  { std::ofstream(file, std::ios::trunc) << text; }
  EXPECT_FALSE(c->restore(dir).ok());
  EXPECT_TRUE(b->restore(dir).ok());
  EXPECT_EQ(b->version(), 1u);
  EXPECT_FALSE(b->restore(dir + "_missing").ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace adarl
