// CAF 0.17.6 as Debian ships it: typed actors, a custom message type, request/reply.
#include <gtest/gtest.h>

#include <caf/all.hpp>

namespace {

struct toy_sample {
  uint32_t index = 0;
  float reward = 0.f;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, toy_sample& x) {
  return f(caf::meta::type_name("toy_sample"), x.index, x.reward);
}

using score_atom = caf::atom_constant<caf::atom("score")>;
using scorer = caf::typed_actor<caf::replies_to<score_atom, toy_sample>::with<float>>;

scorer::behavior_type scorer_impl() {
  return {[](score_atom, const toy_sample& s) { return s.reward * 2.f + s.index; }};
}

struct test_config : caf::actor_system_config {
  test_config() {
    add_message_type<toy_sample>("toy_sample");
    set("scheduler.max-threads", 2);
  }
};

}  // namespace

TEST(CafToolchainTest, TypedActorRepliesWithComputedValue) {
  test_config cfg;
  caf::actor_system sys{cfg};
  auto actor = sys.spawn(scorer_impl);
  caf::scoped_actor self{sys};
  float got = -1.f;
  self->request(actor, std::chrono::seconds(5), score_atom::value, toy_sample{3, 0.5f})
      .receive([&](float r) { got = r; },
               [&](const caf::error& e) { FAIL() << sys.render(e); });
  EXPECT_FLOAT_EQ(got, 4.f);
}

TEST(CafToolchainTest, SerializesCustomMessageType) {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  toy_sample in{7, 0.25f};
  ASSERT_FALSE(sink(in));
  toy_sample out;
  caf::binary_deserializer source{sys, buf};
  ASSERT_FALSE(source(out));
  EXPECT_EQ(out.index, 7u);
  EXPECT_FLOAT_EQ(out.reward, 0.25f);
}
