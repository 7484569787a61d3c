// Property tests over thousands of random reward streams, for every strategy kind.
// Each stream has its own random config, batch and per-prompt pass rates (binary or
// non-binary rewards, some exactly at the threshold); results are delivered in random
// order with duplicates, unknown slots and unrequested indices injected. Seeds are
// fixed, so a failure names the trial to replay.
//
// Checked for every kind: each (slot, index) accepted once and every other copy
// reported; accepted == unique requested == sum of pools; step_done exactly once and
// only when done(); every prompt finished exactly once; kept samples carry the stream's
// rewards. Per kind: Seq groups of size n, pools <= N*M, exit rule consistent, one-class
// fallbacks at zero advantage, hand-derived baseline and advantages; Est budget spent
// exactly (offline and online), waves and plan bounds online; uniform groups of n,
// DAPO's drops, extra draws and kept groups bounded. Arrival order does not change the
// groups (except online Est, whose plan follows the order by design).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "algorithms/est_strategy.hpp"
#include "algorithms/seq_strategy.hpp"
#include "algorithms/uniform_strategy.hpp"
#include "strategy_driver.hpp"

namespace adarl {
namespace {

constexpr float threshold = 0.7f;

using table_t = std::vector<std::vector<float>>;

double uniform01(std::mt19937& rng) {
  return std::uniform_real_distribution<double>(0, 1)(rng);
}
uint32_t uniform_int(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

// Rewards[slot][index] for `slots` prompts: pass rates 0, 1, tiny, near 1 or uniform;
// a third of the prompts have non-binary rewards (negatives sometimes exactly 0.7).
table_t random_table(std::mt19937& rng, size_t slots, size_t per_slot) {
  table_t t(slots, std::vector<float>(per_slot));
  for (auto& row : t) {
    double p = 0;
    switch (uniform_int(rng, 0, 4)) {
      case 0:
        p = 0;
        break;
      case 1:
        p = 1;
        break;
      case 2:
        p = 0.03;
        break;
      case 3:
        p = 0.97;
        break;
      default:
        p = uniform01(rng);
        break;
    }
    const bool binary = uniform_int(rng, 0, 2) != 0;
    for (auto& r : row) {
      const bool positive = uniform01(rng) < p;
      if (binary)
        r = positive ? 1.f : 0.f;
      else if (positive)
        r = static_cast<float>(0.7001 + 0.2999 * uniform01(rng));
      else
        r = uniform01(rng) < 0.2 ? 0.7f : static_cast<float>(0.7 * uniform01(rng));
    }
  }
  return t;
}

struct totals {
  uint64_t duplicates = 0;
  uint64_t junk = 0;
  uint64_t fallbacks = 0;
  uint64_t one_class_fallbacks = 0;
  uint64_t exits = 0;
  uint64_t dropped = 0;
  uint64_t exhausted = 0;
};

// The rules every strategy obeys.
void check_common(const test::run_record& rec, const step_strategy& s,
                  const std::vector<prompt_entry>& prompts, const table_t& table,
                  uint64_t extra_id) {
  ASSERT_FALSE(rec.runaway);
  EXPECT_EQ(rec.status_violations, 0u);
  EXPECT_EQ(rec.index_violations, 0u);
  EXPECT_EQ(rec.step_done_events, 1u);
  EXPECT_EQ(rec.step_done_while_not_done, 0u);
  EXPECT_EQ(rec.done_before_step_done, 0u);
  EXPECT_TRUE(rec.done_at_end);
  const size_t slots = rec.requested.size();
  ASSERT_EQ(slots, prompts.size() + rec.prompts_added);
  // Every prompt finished exactly once.
  std::vector<int> finished(slots, 0);
  uint64_t pooled = 0;
  for (const auto& g : rec.finished) {
    ASSERT_LT(g.slot, slots);
    ++finished[g.slot];
    pooled += g.samples_used;
    EXPECT_EQ(g.samples_used, rec.requested[g.slot]);
    const uint64_t want_id = g.slot < prompts.size()
                                 ? prompts[g.slot].id
                                 : extra_id + (g.slot - prompts.size());
    EXPECT_EQ(g.prompt_id, want_id);
    // Tokens are index + 1 per sample: each pooled sample counted once.
    EXPECT_EQ(g.tokens, uint64_t{g.samples_used} * (g.samples_used + 1) / 2);
    ASSERT_EQ(g.kept.size(), g.rewards.size());
    ASSERT_EQ(g.kept.size(), g.advantages.size());
    EXPECT_TRUE(std::is_sorted(g.kept.begin(), g.kept.end()));
    EXPECT_EQ(std::adjacent_find(g.kept.begin(), g.kept.end()), g.kept.end());
    for (size_t i = 0; i < g.kept.size(); ++i) {
      ASSERT_LT(g.kept[i], g.samples_used);
      EXPECT_EQ(g.rewards[i], table[g.slot][g.kept[i]]);
      EXPECT_TRUE(std::isfinite(g.advantages[i]));
    }
    EXPECT_TRUE(std::isfinite(g.weight));
    EXPECT_GT(g.weight, 0.f);
    uint32_t pos = 0;
    for (uint32_t i = 0; i < g.samples_used; ++i) pos += table[g.slot][i] > threshold;
    EXPECT_EQ(g.positives, pos);
  }
  for (size_t i = 0; i < slots; ++i) EXPECT_EQ(finished[i], 1) << "slot " << i;
  const uint64_t unique =
      std::accumulate(rec.requested.begin(), rec.requested.end(), uint64_t{0});
  EXPECT_EQ(rec.accepted, unique);
  EXPECT_EQ(s.samples_accepted(), unique);
  EXPECT_EQ(pooled, unique);
}

// Same groups, slot by slot, whatever the arrival order.
void check_same_groups(const test::run_record& a, const test::run_record& b) {
  const auto ga = test::by_slot(a.finished), gb = test::by_slot(b.finished);
  ASSERT_EQ(ga.size(), gb.size());
  for (size_t i = 0; i < ga.size(); ++i) {
    EXPECT_EQ(ga[i].slot, gb[i].slot);
    EXPECT_EQ(ga[i].exit, gb[i].exit);
    EXPECT_EQ(ga[i].kept, gb[i].kept);
    EXPECT_EQ(ga[i].advantages, gb[i].advantages);
    EXPECT_EQ(ga[i].weight, gb[i].weight);
    EXPECT_EQ(ga[i].rounds, gb[i].rounds);
    EXPECT_EQ(ga[i].samples_used, gb[i].samples_used);
  }
}

// Plays one stream twice: FIFO, and shuffled with duplicates and junk.
struct two_runs {
  test::run_record fifo;
  test::run_record shuffled;
};

template <class Make>
two_runs play(Make make, const std::vector<prompt_entry>& prompts, const table_t& table,
              std::mt19937& rng, uint32_t supply = UINT32_MAX,
              std::function<void(step_strategy&, const test::run_record&)> hook = {}) {
  bool outside = false;  // a request beyond what the stream was generated for
  const test::reward_fn reward = [&](prompt_slot s, uint32_t i) {
    if (s < table.size() && i < table[s].size()) return table[s][i];
    outside = true;
    return 0.f;
  };
  two_runs out;
  {
    auto s = make();
    test::driver_options opt;
    opt.prompt_supply = supply;
    if (hook) opt.after_event = [&](const test::run_record& r) { hook(*s, r); };
    opt.max_results = 20'000;
    out.fifo = test::drive(*s, prompts, reward, opt);
    EXPECT_FALSE(outside);
    check_common(out.fifo, *s, prompts, table, opt.extra_prompt_id);
  }
  {
    auto s = make();
    test::driver_options opt;
    opt.rng = &rng;
    opt.duplicate_rate = 0.15;
    opt.junk_rate = 0.03;
    opt.prompt_supply = supply;
    if (hook) opt.after_event = [&](const test::run_record& r) { hook(*s, r); };
    opt.max_results = 20'000;
    out.shuffled = test::drive(*s, prompts, reward, opt);
    EXPECT_FALSE(outside);
    check_common(out.shuffled, *s, prompts, table, opt.extra_prompt_id);
  }
  return out;
}

// ---------------------------------------------------------------------------- Seq

seq_config random_seq_config(std::mt19937& rng) {
  for (;;) {
    strategy_config c;
    c.kind = strategy_kind::ada_seq;
    auto& s = c.seq;
    s.group_size = 2 * uniform_int(rng, 1, 4);
    if (uniform_int(rng, 0, 3) == 0) s.group_size = uniform_int(rng, 2, 7);  // odd n too
    s.round_size = uniform_int(rng, s.group_size, 2 * s.group_size);
    s.max_rounds = uniform_int(rng, 1, 4);
    s.exit = uniform_int(rng, 0, 1) ? exit_rule::pos : exit_rule::balance;
    s.k_pos = uniform_int(rng, 0, 2) == 0 ? uniform_int(rng, 1, s.group_size) : 0;
    s.k_neg = uniform_int(rng, 0, 2) == 0 ? uniform_int(rng, 1, s.group_size) : 0;
    s.std_norm = uniform_int(rng, 0, 2) == 0;
    s.explicit_weight = uniform_int(rng, 0, 2) == 0;
    if (validate(c).empty()) return s;
  }
}

void check_seq_group(const finished_group& g, const seq_config& c, const table_t& table,
                     totals& t) {
  const uint32_t n = c.group_size, m = c.round_size;
  const uint32_t k_pos = c.effective_k_pos(), k_neg = c.effective_k_neg();
  const auto& row = table[g.slot];
  auto positives_in = [&](uint32_t size) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < size; ++i) k += row[i] > threshold;
    return k;
  };
  auto meets = [&](uint32_t size) {
    const uint32_t pos = positives_in(size);
    return pos >= k_pos && size - pos >= k_neg;
  };
  // Group size n, whole rounds, at most N*M samples.
  ASSERT_EQ(g.kept.size(), n);
  ASSERT_EQ(g.samples_used % m, 0u);
  ASSERT_EQ(g.rounds, g.samples_used / m);
  ASSERT_GE(g.rounds, 1u);
  ASSERT_LE(g.samples_used, c.max_rounds * m);
  // It exits at the first round whose pool meets the rule, else falls back after N.
  for (uint32_t r = 1; r < g.rounds; ++r) EXPECT_FALSE(meets(r * m)) << "round " << r;
  const uint32_t size = g.samples_used, pos = positives_in(size), neg = size - pos;
  if (meets(size)) {
    EXPECT_EQ(g.exit, c.exit == exit_rule::pos ? exit_kind::pos : exit_kind::balance);
    ++t.exits;
  } else {
    EXPECT_EQ(g.rounds, c.max_rounds);
    EXPECT_EQ(g.exit, pos < k_pos ? exit_kind::fallback_missing_positives
                                  : exit_kind::fallback_missing_negatives);
    ++t.fallbacks;
  }
  // Down-sampling: the target (n/2, or the proportional one for a pos fallback), then
  // negatives, then the class with extras; the first of each class in generation order.
  uint32_t target = n / 2;
  if (is_fallback(g.exit) && c.exit == exit_rule::pos)
    target = std::clamp<uint32_t>((pos * n + size - 1) / size, 1, n - 1);
  const uint32_t kept_neg = std::min(n - std::min(target, pos), neg);
  const uint32_t kept_pos = n - kept_neg;
  uint32_t seen_pos = 0, seen_neg = 0, got_pos = 0;
  for (uint32_t i = 0; i < size; ++i) {
    const bool chosen = std::binary_search(g.kept.begin(), g.kept.end(), i);
    if (row[i] > threshold) {
      EXPECT_EQ(chosen, seen_pos++ < kept_pos) << "positive " << i;
      got_pos += chosen;
    } else {
      EXPECT_EQ(chosen, seen_neg++ < kept_neg) << "negative " << i;
    }
  }
  EXPECT_EQ(got_pos, kept_pos);
  // Baseline over the whole pool; advantages from the raw rewards.
  const double p_hat = static_cast<double>(pos) / size;
  EXPECT_NEAR(g.baseline, p_hat, 1e-6);
  const bool one_class = kept_pos == 0 || kept_pos == n;
  // The reference's std normalisation: max(std, 1e-6) + 1e-6.
  const double sd =
      (size > 1 ? std::max(std::sqrt(double(pos) * neg / (double(size) * (size - 1))), 1e-6)
                : 1.0) +
      1e-6;
  for (size_t i = 0; i < n; ++i) {
    double want = g.rewards[i] - p_hat;
    if (is_fallback(g.exit) && one_class)
      want = 0;
    else if (c.std_norm)
      want /= sd;
    EXPECT_NEAR(g.advantages[i], want, 1e-5 * std::max(1.0, std::fabs(want)));
  }
  if (is_fallback(g.exit) && one_class) {
    EXPECT_TRUE(g.zero_gradient());
    ++t.one_class_fallbacks;
  }
  const double weight = c.explicit_weight ? 1.0 / std::max(p_hat, 1.0 / size) : 1.0;
  EXPECT_NEAR(g.weight, weight, 1e-5 * weight);
  double first = 0;
  for (uint32_t i = 0; i < m; ++i) first += row[i];
  EXPECT_NEAR(g.first_round_reward, first / m, 1e-5);
  EXPECT_TRUE(g.trainable());
}

TEST(PropertyTest, SeqRandomStreams) {
  std::mt19937 rng(20251004);
  totals t;
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    const auto c = random_seq_config(rng);
    const size_t batch = uniform_int(rng, 1, 10);
    const auto table = random_table(rng, batch, c.max_rounds * c.round_size);
    const auto prompts = test::make_prompts(batch, 1000 * trial);
    const auto runs =
        play([&] { return std::make_unique<seq_strategy>(c); }, prompts, table, rng);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    for (const auto& g : runs.shuffled.finished) {
      check_seq_group(g, c, table, t);
      ASSERT_FALSE(::testing::Test::HasFatalFailure());
    }
    EXPECT_EQ(runs.shuffled.finished.size(), batch);
    check_same_groups(runs.fifo, runs.shuffled);
    t.duplicates += runs.shuffled.duplicates;
    t.junk += runs.shuffled.unknown_slots + runs.shuffled.not_requested;
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  // The streams exercised every branch.
  EXPECT_GT(t.duplicates, 1000u);
  EXPECT_GT(t.junk, 100u);
  EXPECT_GT(t.exits, 1000u);
  EXPECT_GT(t.fallbacks, 1000u);
  EXPECT_GT(t.one_class_fallbacks, 500u);
}

// ---------------------------------------------------------------------------- Est

est_config random_est_config(std::mt19937& rng, size_t batch) {
  for (;;) {
    strategy_config c;
    c.kind = strategy_kind::ada_est;
    auto& e = c.est;
    e.n_min = uniform_int(rng, 1, 4);
    e.n_max = uniform_int(rng, e.n_min, 24);
    if (uniform_int(rng, 0, 1))
      e.budget = uniform_int(rng, static_cast<uint32_t>(batch * e.n_min),
                             static_cast<uint32_t>(batch * e.n_max));
    else
      e.samples_per_prompt = e.n_min + (e.n_max - e.n_min) * uniform01(rng);
    switch (uniform_int(rng, 0, 2)) {
      case 0:
        e.weight_objective = {objective_kind::log, 0.5};
        break;
      case 1:
        e.weight_objective = {objective_kind::linear, 0.5};
        break;
      default:
        e.weight_objective = {objective_kind::power, 0.1 + 0.8 * uniform01(rng)};
    }
    e.sample_share = uniform_int(rng, 0, 1) ? 0.5 : uniform01(rng);
    e.wave = uniform_int(rng, 1, 5);
    if (validate(c).empty()) return e;
  }
}

std::vector<prompt_entry> random_priors(std::mt19937& rng, size_t batch, uint64_t id) {
  auto prompts = test::make_prompts(batch, id);
  for (auto& p : prompts)
    p.prior = beta_posterior::from_mean(uniform01(rng), 0.5 + 20 * uniform01(rng));
  return prompts;
}

void check_est_group(const finished_group& g, const est_config& c) {
  EXPECT_EQ(g.exit, exit_kind::allocated);
  EXPECT_GE(g.samples_used, c.n_min);
  EXPECT_LE(g.samples_used, c.n_max);
  ASSERT_EQ(g.kept.size(), g.samples_used);  // trains on every sample
  double mean = 0;
  for (float r : g.rewards) mean += r;
  mean /= g.samples_used;
  EXPECT_NEAR(g.baseline, mean, 1e-6);
  for (size_t i = 0; i < g.kept.size(); ++i) {
    EXPECT_EQ(g.kept[i], i);
    EXPECT_NEAR(g.advantages[i], g.rewards[i] - mean, 1e-5);
  }
  const double w = std::pow(c.weight_objective.weight(mean + c.eps), 1 - c.sample_share);
  EXPECT_NEAR(g.weight, w, 1e-5 * w);
}

void est_random_streams(bool online, uint32_t seed) {
  std::mt19937 rng(seed);
  uint64_t duplicates = 0, events = 0, waves_full = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    const size_t batch = uniform_int(rng, 1, 10);
    const auto c = random_est_config(rng, batch);
    const auto prompts = random_priors(rng, batch, 1000 * trial);
    const auto table = random_table(rng, batch, c.n_max);
    const uint64_t budget =
        c.budget > 0 ? c.budget
                     : static_cast<uint64_t>(std::llround(c.samples_per_prompt * batch));
    std::vector<uint32_t> start_plan;
    uint64_t plan_violations = 0;
    auto hook = [&](step_strategy& base, const test::run_record& rec) {
      const auto& s = static_cast<est_strategy&>(base);
      ++events;
      if (start_plan.empty()) start_plan = s.plan();
      if (std::accumulate(s.plan().begin(), s.plan().end(), uint64_t{0}) != budget ||
          s.budget() != budget)
        ++plan_violations;
      for (size_t i = 0; i < batch; ++i)
        if (s.plan()[i] < rec.requested[i] || s.plan()[i] < c.n_min ||
            s.plan()[i] > c.n_max)
          ++plan_violations;
    };
    start_plan.clear();
    const auto runs = play([&] { return std::make_unique<est_strategy>(c, online); },
                           prompts, table, rng, UINT32_MAX, hook);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    EXPECT_EQ(plan_violations, 0u);
    for (const auto* rec : {&runs.fifo, &runs.shuffled}) {
      // The budget is spent exactly.
      EXPECT_EQ(rec->accepted, budget);
      uint64_t used = 0;
      for (const auto& g : rec->finished) {
        check_est_group(g, c);
        used += g.samples_used;
      }
      EXPECT_EQ(used, budget);
      EXPECT_EQ(rec->finished.size(), batch);
      if (online) {
        EXPECT_LE(rec->max_in_flight, c.wave);
        waves_full += rec->max_in_flight == c.wave;
      }
    }
    if (!online) {
      // Offline: the start plan is what each prompt gets, in any order.
      for (const auto& g : runs.shuffled.finished)
        EXPECT_EQ(g.samples_used, start_plan[g.slot]);
      check_same_groups(runs.fifo, runs.shuffled);
    }
    duplicates += runs.shuffled.duplicates;
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  EXPECT_GT(duplicates, 1000u);
  EXPECT_GT(events, 10000u);
  if (online) {
    EXPECT_GT(waves_full, 1000u);
  }
}

TEST(PropertyTest, EstOfflineRandomStreams) {
  est_random_streams(false, 4242);
}

TEST(PropertyTest, EstOnlineRandomStreams) {
  est_random_streams(true, 4343);
}

// ---------------------------------------------------------------------------- uniform

void check_uniform_group(const finished_group& g, uint32_t n, strategy_kind kind,
                         double std_eps) {
  ASSERT_EQ(g.kept.size(), n);
  EXPECT_EQ(g.samples_used, n);
  double mean = 0;
  for (float r : g.rewards) mean += r;
  mean /= n;
  double ss = 0;
  for (float r : g.rewards) ss += (r - mean) * (r - mean);
  const double sd = std::sqrt(ss / (n - 1));
  const bool all_equal = std::all_of(g.rewards.begin(), g.rewards.end(),
                                     [&](float r) { return r == g.rewards[0]; });
  EXPECT_EQ(g.exit, kind == strategy_kind::dapo && all_equal ? exit_kind::dropped
                                                             : exit_kind::uniform);
  for (size_t i = 0; i < n; ++i) {
    const double want = kind == strategy_kind::dr_grpo
                            ? g.rewards[i] - mean
                            : (g.rewards[i] - mean) / (sd + std_eps);
    EXPECT_NEAR(g.advantages[i], want, 1e-5 * std::max(1.0, std::fabs(want)));
  }
}

TEST(PropertyTest, GrpoAndDrGrpoRandomStreams) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    const auto kind = trial % 2 ? strategy_kind::grpo : strategy_kind::dr_grpo;
    uniform_config c;
    c.group_size = uniform_int(rng, 2, 16);
    const size_t batch = uniform_int(rng, 1, 12);
    const auto table = random_table(rng, batch, c.group_size);
    const auto prompts = test::make_prompts(batch, 1000 * trial);
    const auto runs = play([&] { return std::make_unique<uniform_strategy>(c, kind); },
                           prompts, table, rng);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    EXPECT_EQ(runs.shuffled.finished.size(), batch);
    EXPECT_EQ(runs.shuffled.prompts_wanted, 0u);
    EXPECT_EQ(runs.shuffled.accepted, batch * c.group_size);
    for (const auto& g : runs.shuffled.finished)
      check_uniform_group(g, c.group_size, kind, c.std_eps);
    check_same_groups(runs.fifo, runs.shuffled);
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
}

TEST(PropertyTest, DapoRandomStreams) {
  std::mt19937 rng(31337);
  totals t;
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE(trial);
    uniform_config c;
    c.group_size = uniform_int(rng, 2, 8);
    const double factors[] = {0.0, 0.25, 0.5, 1.0, 2.0, 3.0};
    c.dapo_extra_factor = factors[uniform_int(rng, 0, 5)];
    const size_t batch = uniform_int(rng, 1, 10);
    const auto cap = static_cast<uint32_t>(std::ceil(c.dapo_extra_factor * batch));
    // Sometimes the prompt source runs dry before the cap.
    const uint32_t supply =
        uniform_int(rng, 0, 2) == 0 ? uniform_int(rng, 0, cap) : UINT32_MAX;
    const auto table = random_table(rng, batch + cap, c.group_size);
    const auto prompts = test::make_prompts(batch, 1000 * trial);
    const auto runs =
        play([&] { return std::make_unique<uniform_strategy>(c, strategy_kind::dapo); },
             prompts, table, rng, supply);
    ASSERT_FALSE(::testing::Test::HasFatalFailure());
    for (const auto* rec : {&runs.fifo, &runs.shuffled}) {
      uint32_t kept = 0, dropped = 0;
      for (const auto& g : rec->finished) {
        check_uniform_group(g, c.group_size, strategy_kind::dapo, c.std_eps);
        (g.trainable() ? kept : dropped) += 1;
      }
      // Never more kept groups than the batch, never more draws than the cap or supply.
      EXPECT_LE(kept, batch);
      EXPECT_LE(rec->prompts_added, std::min(cap, supply));
      EXPECT_EQ(rec->finished.size(), batch + rec->prompts_added);
      // A replacement was drawn for every drop while the cap and the source allowed.
      EXPECT_EQ(rec->prompts_added, std::min({dropped, cap, supply}));
      EXPECT_EQ(rec->accepted, (batch + rec->prompts_added) * c.group_size);
      t.dropped += dropped;
      t.exhausted += supply < std::min(dropped, cap);
    }
    check_same_groups(runs.fifo, runs.shuffled);
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  EXPECT_GT(t.dropped, 1000u);
  EXPECT_GT(t.exhausted, 100u);
}

}  // namespace
}  // namespace adarl
