// The generator actor's weight schedule: an evaluation order is drawn with exactly the
// version it names, even when newer weights have arrived; training orders wait for
// their min_version.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include "actors/generator.hpp"
#include "engines/sim/sim_engines.hpp"
#include "tests/actors/actor_fixtures.hpp"

namespace adarl {
namespace {

using namespace std::chrono_literals;

// A work source that only takes credit, and a verifier that hands completions to the test.
// (The unused argument: CAF 0.17 spawns a function actor without arguments through a
// null std::shared_ptr<std::tuple<>>, which UBSan reports; tests/sanitizers/ubsan.supp.)
work_source_actor::behavior_type quiet_tracker(work_source_actor::pointer, int) {
  return {[](credit_atom, uint32_t, generator_actor) {}};
}

verifier_actor::behavior_type forwarding_verifier(verifier_actor::pointer, caf::actor sink) {
  return {[=](verify_atom, std::vector<completion>& batch, uint32_t, generator_actor) {
    caf::anon_send(sink, verify_atom::value, std::move(batch));
  }};
}

TEST(GeneratorActorTest, EvaluationOrdersUseExactlyTheirVersion) {
  test::test_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto table = test::math_table(8, 4);
  auto world = std::make_shared<sim_world>();
  world->train = table->train;
  for (const auto& r : table->rows) world->answers.push_back(r.item.answer);
  sim_latency latency;
  latency.capacity = 8;
  latency.min_steps = 3;
  generator_setup gs;
  gs.make_engine = [world, latency]() -> result<std::unique_ptr<generation_engine>> {
    auto tok = tokenizer::from_charset(tokenizer::default_charset());
    return make_sim_generator(*world, latency, *tok);
  };
  gs.prompts = table;
  gs.tracker = sys.spawn(quiet_tracker, 0);
  gs.verifiers = {sys.spawn(forwarding_verifier, caf::actor_cast<caf::actor>(self))};
  gs.supervisor = caf::actor_cast<caf::actor>(self);
  auto gen = spawn_generator(sys, gs);
  auto base = sim_initial_weights(*world);
  auto version = [&](uint64_t v) {
    auto w = std::make_shared<sim_weights>(*base);
    w->version = v;
    return weights_ptr(w);
  };
  self->send(gen, weights_atom::value, version(1));
  self->send(gen, weights_atom::value, version(2));
  // Held-out prompt 8 evaluated at version 1 (older than the newest), then a training
  // order for step 3 that version 2 may draw, then an evaluation of version 2.
  std::vector<work_order> orders;
  for (uint32_t k = 0; k < 3; ++k) orders.push_back({1, 0, k, 8, 100 + k, 1, false, 1});
  orders.push_back({3, 0, 0, 1, 200, 0, false, 2});
  orders.push_back({2, 0, 0, 9, 300, 2, false, 2});
  self->send(gen, work_atom::value, orders);
  std::map<uint64_t, uint64_t> version_of;  // stream -> version that drew it
  for (int i = 0; i < 10 && version_of.size() < orders.size(); ++i)
    self->receive(
        [&](verify_atom, std::vector<completion>& batch) {
          for (const auto& c : batch) version_of[c.order.stream] = c.version;
        },
        caf::after(5s) >> [] {});
  ASSERT_EQ(version_of.size(), orders.size());
  for (uint64_t s : {100, 101, 102}) EXPECT_EQ(version_of[s], 1u) << s;
  EXPECT_EQ(version_of[200], 2u);
  EXPECT_EQ(version_of[300], 2u);
  self->send_exit(gen, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace adarl
