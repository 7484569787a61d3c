// embed_verifier: a host program with its own CAF actor system runs a Reinforce-Ada
// pipeline (ada-seq on the simulated policy) whose completions are scored by the host's
// own reward actor, a typed actor implementing adarl's verifier_actor interface.
#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <string>

#include <adarl/messages/interfaces.hpp>
#include <adarl/pipelines/pipeline_builder.hpp>

namespace {

/// What the host's reward actors counted (shared with main; atomics: several actors).
struct reward_tally {
  std::atomic<uint64_t> scored{0};
  std::atomic<uint64_t> rewarded{0};
};

/// The host's rule: "reverse: WORD" is answered by WORD reversed, and nothing else.
float reverse_rule(const std::string& prompt, const std::string& completion) {
  const std::string word = prompt.substr(prompt.find(": ") + 2);
  return completion == std::string(word.rbegin(), word.rend()) ? 1.f : 0.f;
}

/// The reward actor: scores each batch, then hands it to the tracker with the credit
/// its generator returns (the verifier_actor contract, pipelines/pipeline_handle.hpp).
adarl::verifier_actor::behavior_type reward_actor(adarl::verifier_actor::pointer self,
                                                  adarl::verifier_context ctx,
                                                  std::shared_ptr<reward_tally> tally) {
  return {[=](adarl::verify_atom, std::vector<adarl::completion>& batch, uint32_t credit,
              adarl::generator_actor generator) {
    for (auto& c : batch) {
      const auto& row = ctx.prompts->rows.at(c.order.prompt_id);
      const std::string text = ctx.prompts->codec->decode_completion(c.tokens);
      c.reward = reverse_rule(row.item.prompt, text);
      c.reason = c.reward > 0 ? "" : "not_reversed";
      tally->scored += 1;
      tally->rewarded += c.reward > 0;
    }
    self->send(ctx.tracker, adarl::scored_atom::value, std::move(batch), credit, generator);
  }};
}

/// The host's tasks: words to reverse (the simulated policy answers with item.answer).
adarl::result<adarl::task_set> reverse_tasks(const adarl::pipeline_config& c) {
  adarl::task_set set;
  const char* words[] = {"actor", "budget", "credit", "lease", "policy", "reward", "sample",
                         "tracker", "verifier", "weights", "gradient", "rollout"};
  uint32_t n = 0;
  for (const char* w : words) {
    const std::string word = w, reversed(word.rbegin(), word.rend());
    adarl::task_item item{"rev-" + word, "reverse: " + word, reversed, "reverse", "reverse"};
    (n++ < c.tasks.train ? set.train : set.held_out).push_back(item);
  }
  return set;
}

}  // namespace

int main() {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  caf::actor_system system{cfg};  // the host's own actor system

  adarl::pipeline_config config;
  config.name = "embed_verifier";
  config.out = "embed_verifier_run";
  config.progress = false;
  config.policy.kind = adarl::policy_kind::simulated;
  config.tasks.train = 8;
  config.tracker.steps = 4;
  config.tracker.prompts_per_step = 4;
  config.tracker.strategy.kind = adarl::strategy_kind::ada_seq;  // Reinforce-Ada (ada-seq)
  config.actors.verifiers = 2;

  auto tally = std::make_shared<reward_tally>();
  adarl::pipeline_builder builder(config);
  builder.tasks(reverse_tasks)
      .verifier("reverse", [](const adarl::task_item& item, std::string_view text) {
        return adarl::verdict{reverse_rule(item.prompt, std::string(text)), ""};
      })
      .verifier_actors([tally](const adarl::verifier_context& ctx)
                           -> adarl::result<adarl::verifier_actor> {
        return ctx.sys->spawn(reward_actor, ctx, tally);
      });
  auto run = builder.start(system);
  if (!run) {
    std::cerr << "embed_verifier: " << run.err().message << "\n";
    return 1;
  }
  auto outcome = (*run)->wait();
  if (!outcome) {
    std::cerr << "embed_verifier: " << outcome.err().message << "\n";
    return 1;
  }
  std::cout << "embed_verifier: trained to version " << outcome->version << "; the host's "
            << "reward actors scored " << tally->scored << " completions, "
            << tally->rewarded << " rewarded\n";
  return tally->scored > 0 ? 0 : 1;
}
