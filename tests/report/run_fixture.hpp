#pragma once
// A small run directory for the run page's tests: metrics.jsonl, eval.jsonl and
// config.json of a Seq run whose every number is known by hand.

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace adarl::testing_run {

using json = nlohmann::json;

/// One step line of the fixture (step k, version k + 1): 4 prompts, 2 of which exit in
/// round 1, 1 in round 2 and 1 never exits (4 rounds): 8 rounds of 8 samples = 64
/// samples; real_reward 0.2 + 0.02 k; 5 zero rewards (3 no_answer, 2 wrong_value).
inline json seq_step(int k) {
  return {{"step", k},
          {"policy_version", k + 1},
          {"real_reward", 0.2 + 0.02 * k},
          {"zero_gradient_fraction", 0.5},
          {"prompts", 4},
          {"samples", 64},
          {"tokens", 640},
          {"cumulative_samples", 64 * (k + 1)},
          {"cumulative_tokens", 640 * (k + 1)},
          {"samples_per_prompt_mean", 16.0},
          {"samples_per_prompt_max", 32},
          {"rounds", {0, 2, 1, 0, 1}},
          {"exits",
           {{"pos", 0},
            {"balance", 3},
            {"fallback_missing_positives", 1},
            {"fallback_missing_negatives", 0},
            {"uniform", 0},
            {"allocated", 0},
            {"dropped", 0}}},
          {"samples_by_pass_rate",
           {{"prompts", {1, 0, 0, 0, 0, 2, 0, 0, 0, 1}},
            {"samples", {32, 0, 0, 0, 0, 24, 0, 0, 0, 8}}}},
          {"time_step", 0.5},
          {"time_generation", 0.3},
          {"time_train", 0.1},
          {"elapsed", 0.5 * (k + 1)},
          {"zero_reward_reasons", {{"no_answer", 3}, {"wrong_value", 2}}}};
}

/// An evaluation of 20 held-out prompts, the first `right` of them answered correctly.
inline json evaluation(int version, int right) {
  std::vector<int> per_prompt(20, 0);
  for (int i = 0; i < right; ++i) per_prompt[i] = 1;
  return {{"version", version},
          {"prompts", 20},
          {"greedy", right / 20.0},
          {"prompt_greedy", per_prompt},
          {"seconds", 0.2}};
}

/// The fixture's steps (20) and evaluations (versions 20, 0 and 10: eval.jsonl is in
/// order of completion; 12, 5 and 6 of 20 right).
inline std::vector<json> seq_steps() {
  std::vector<json> steps;
  for (int k = 0; k < 20; ++k) steps.push_back(seq_step(k));
  return steps;
}
inline std::vector<json> seq_evals() {
  return {evaluation(20, 12), evaluation(0, 5), evaluation(10, 6)};
}

/// Writes the fixture into a fresh `dir`; config.json (seed 1, ada-seq, M 8, N 4)
/// unless `with_config` is false.
inline void write_seq_run(const std::string& dir, bool with_config = true) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream m(dir + "/metrics.jsonl");
  for (const auto& s : seq_steps()) m << s.dump() << "\n";
  std::ofstream e(dir + "/eval.jsonl");
  for (const auto& v : seq_evals()) e << v.dump() << "\n";
  if (!with_config) return;
  const json values = {{"name", "fixture"},
                       {"seed", "1"},
                       {"out", dir},
                       {"strategy.kind", "ada-seq"},
                       {"strategy.round_size", "8"},
                       {"strategy.max_rounds", "4"},
                       {"strategy.exit", "balance"},
                       {"model.kind", "transformer"},
                       {"model.base_checkpoint", ""},
                       {"tasks.suite", "general"},
                       {"eval.every", "10"}};
  std::ofstream(dir + "/config.json")
      << json{{"format", "adarl-config-1"}, {"values", values}}.dump(1);
}

}  // namespace adarl::testing_run
