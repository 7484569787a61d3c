// Checks the ThreadSanitizer set-up of build-tsan/ (tests/sanitizers/CMakeLists.txt):
//   tsan_selftest handoff  moves mutable payloads through CAF only (a chain of
//                          event-based actors, requests and their responses, a detached
//                          actor, a scoped_actor): must run without a single report, or
//                          tsan_caf_sync.cpp misses one of CAF's hand-offs;
//   tsan_selftest race     two detached actors write one counter at the same time with
//                          no message between them: must be reported, or the hooks
//                          order more than CAF does and hide real races.
#include <caf/all.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using hop_atom = caf::atom_constant<caf::atom("hop")>;
using sum_atom = caf::atom_constant<caf::atom("sum")>;
using bump_atom = caf::atom_constant<caf::atom("bump")>;

/// Mutable, deliberately unsynchronized: only messages order its writers.
struct payload {
  std::vector<int> values;
  std::string trail;
};
using payload_ptr = std::shared_ptr<payload>;

}  // namespace

// Process-local, like the weight snapshots of messages/messages.hpp.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(payload_ptr)

namespace {

int shared_counter = 0;  // written by both racers of `race`

/// Adds to every value, appends to the trail and passes the payload on.
caf::behavior stage(caf::event_based_actor*, caf::actor next, int add) {
  return {[=](hop_atom, payload_ptr& p) {
    for (int& v : p->values) v += add;
    p->trail += 'x';
    caf::anon_send(next, hop_atom::value, std::move(p));
  }};
}

/// Answers a request with the sum of the payload, after changing it.
caf::behavior summer(caf::event_based_actor*) {
  return {[](sum_atom, payload_ptr& p) {
    long sum = 0;
    for (int& v : p->values) sum += v++;
    return sum;
  }};
}

/// Asks `summer` about each payload it gets, then hands the payload to `sink`.
caf::behavior asker(caf::event_based_actor* self, caf::actor summer_actor, caf::actor sink) {
  return {[=](hop_atom, payload_ptr& p) {
    self->request(summer_actor, std::chrono::seconds(10), sum_atom::value, p)
      .then([=](long sum) {
        p->trail += std::to_string(sum % 10);
        caf::anon_send(sink, hop_atom::value, p);
      });
  }};
}

caf::behavior racer(caf::event_based_actor*) {
  return {[](bump_atom, int n) {
    for (int i = 0; i < n; ++i) {
      ++shared_counter;
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }};
}

int handoff(caf::actor_system& sys) {
  caf::scoped_actor self{sys};
  auto sink = caf::actor_cast<caf::actor>(self);
  auto detached_stage = sys.spawn<caf::detached>(stage, sink, 1);
  auto ask = sys.spawn(asker, sys.spawn(summer), detached_stage);
  caf::actor first = ask;
  for (int k = 0; k < 4; ++k) first = sys.spawn(stage, first, k);
  constexpr int payloads = 200;
  for (int k = 0; k < payloads; ++k) {
    auto p = std::make_shared<payload>();
    p->values.assign(64, k);
    caf::anon_send(first, hop_atom::value, std::move(p));
  }
  int received = 0;
  self->receive_for(received, payloads)([](hop_atom, payload_ptr& p) {
    p->values.clear();  // the test thread writes what the actors wrote last
    p->trail.clear();
  });
  caf::anon_send_exit(detached_stage, caf::exit_reason::user_shutdown);
  std::printf("handoff: %d payloads through 7 hops\n", received);
  return received == payloads ? 0 : 1;
}

int race(caf::actor_system& sys) {
  auto a = sys.spawn<caf::detached>(racer);
  auto b = sys.spawn<caf::detached>(racer);
  caf::anon_send(a, bump_atom::value, 2000);
  caf::anon_send(b, bump_atom::value, 2000);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "handoff" && mode != "race") {
    std::fprintf(stderr, "usage: tsan_selftest handoff|race\n");
    return 2;
  }
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{4});
  caf::actor_system sys{cfg};
  return mode == "handoff" ? handoff(sys) : race(sys);
}
