#include "actors/verifier.hpp"

#include <caf/all.hpp>
#include <tbb/parallel_for.h>

#include "actors/failure.hpp"

namespace adarl {

const text_codec& completion_codec(const verifier_setup& s) {
  return s.prompts->codec ? *s.prompts->codec : *s.tok;
}

void score(const verifier_setup& s, completion& c) {
  c.reward = 0.f;
  c.reason.clear();
  if (c.order.prompt_id >= s.prompts->rows.size()) {
    c.reason = "unknown_prompt";
    return;
  }
  const verdict d =
      verify_item(*s.registry, s.prompts->rows[c.order.prompt_id].item,
                  completion_codec(s).decode_completion(c.tokens));
  c.reward = d.reward;
  c.reason = d.reason;
}

namespace {

struct verifier_state {
  static inline const char* name = "verifier";
};

verifier_actor::behavior_type verifier_fun(verifier_actor::stateful_pointer<verifier_state> self,
                                           verifier_setup setup) {
  report_exceptions(self, "verifier");
  return {
      [=](verify_atom, std::vector<completion>& batch, uint32_t credit, generator_actor g) {
        if (batch.size() > 1)
          tbb::parallel_for(size_t(0), batch.size(), [&](size_t i) { score(setup, batch[i]); });
        else
          for (auto& c : batch) score(setup, c);
        if (credit > 0)
          self->send(setup.tracker, scored_atom::value, std::move(batch), credit, std::move(g));
        else
          self->send(setup.tracker, scored_atom::value, std::move(batch));
      },
  };
}

}  // namespace

verifier_actor spawn_verifier(caf::actor_system& sys, verifier_setup setup) {
  return sys.spawn<caf::detached>(verifier_fun, std::move(setup));
}

}  // namespace adarl
