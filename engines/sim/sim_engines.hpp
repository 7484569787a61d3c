#pragma once
// Simulated engines: the pipeline without a model. A generator "answers" prompt x
// correctly with the simulated policy's pass rate p_x, and the learner applies the
// simulated policy's update to the groups it trains on. Used by actor tests, pipeline
// smoke runs and the scale and overhead benchmarks. Torch-free.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/sim/simulated_policy.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

/// Weights of the simulated policy: a full copy of its state at one version.
struct sim_weights : policy_weights {
  explicit sim_weights(simulated_policy p) : policy(std::move(p)) {}
  simulated_policy policy;
  /// policy.serialize() (exact: parse() restores every value bit for bit).
  result<std::string> to_bytes() const override { return policy.serialize(); }
};

/// The prompts a simulated world answers. Prompt ids 0..answers.size()-1; the first
/// `train` ids are training prompts (pass rate sigmoid(s + u_x + b_x)), the rest held-out
/// prompts (sigmoid(s + b)).
struct sim_world {
  sim_model_config model;
  std::vector<std::string> answers;   ///< Correct completion text of each prompt id.
  uint32_t train = 0;                 ///< Training prompts (ids below this).
  uint64_t seed = 1;                  ///< Difficulties and sample draws.
  std::string wrong_answer = "?";     ///< Text of a wrong completion (no verifier accepts it).
};

/// Latency model of the simulated generator.
struct sim_latency {
  uint32_t capacity = 64;             ///< Rows decoded together.
  double step_seconds = 0;            ///< Wall time one step() takes (sleeps); 0 = none.
  uint32_t min_steps = 1;             ///< Decoding steps of the shortest completion.
  double tail = 0;                    ///< Pareto tail index of the extra steps; 0 = none.
  uint32_t max_steps = 64;            ///< Cap of the steps of one completion.
};

/// The initial weights (version 0) of a world: draws the difficulties.
std::shared_ptr<const sim_weights> sim_initial_weights(const sim_world& world);

/// A generation engine over sim_weights. A row of prompt x finishes after a number of
/// steps drawn from (stream, latency) and returns the tokens of the right answer (when a
/// uniform keyed by its stream falls below p_x; greedy: when p_x > 0.5) or of the wrong
/// one, followed by the end token. Deterministic given the streams and weights.
/// Details: the outcome uses keyed_uniform(stream, 0, 0, 0) and the weights in use at
/// admission (so does the result's version); a row takes
/// floor(min_steps * (1 - u)^(-1/tail)) steps (u = keyed_uniform(stream, 1, 7, 0);
/// min_steps when tail is 0), at most max_steps and at least 1. The first token's
/// log-prob is log p_x or log(1 - p_x) (clamped at log 1e-30), the others 0. A prompt id
/// outside the world (or an answer the tokenizer cannot encode) finishes at the next
/// step with no tokens and ended = false. admit() beyond capacity fails fast.
/// step() sleeps step_seconds, then is O(active rows).
std::unique_ptr<generation_engine> make_sim_generator(const sim_world& world,
                                                      const sim_latency& latency,
                                                      const tokenizer& tok);

/// A learner engine over a simulated_policy: train() groups the batch by prompt id and
/// applies simulated_policy::update (advantages already weighted; a sample is a success
/// when its reward > 0.5). save()/restore() write and read the whole state.
/// Samples of held-out or unknown prompt ids are counted in the stats but not trained
/// on. Every non-empty batch takes a step (version + 1); an empty one changes nothing
/// and returns zero stats. Stats: loss = -(1/K) sum_i A_i log pi(y_i) and entropy = the
/// mean Bernoulli entropy of p_x over the K trained samples, at the parameters before the
/// step; grad_norm = |change of the shared skill s|. The checkpoint is the text file
/// DIR/sim_policy.txt (a header, the version, then simulated_policy::serialize()); a
/// missing, corrupt or truncated file, or one of another world's shape, is an error
/// naming the file that leaves the learner unchanged.
/// `updates_per_step` splits each batch into that many contiguous parts, one update each.
std::unique_ptr<learner_engine> make_sim_learner(const sim_world& world,
                                                 uint32_t updates_per_step = 1);

}  // namespace adarl
