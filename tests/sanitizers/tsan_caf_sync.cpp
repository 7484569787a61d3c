// Compiled into every executable of a ThreadSanitizer build (ADARL_SANITIZE=thread) and
// nowhere else. Debian's CAF 0.17.6 is not instrumented: it hands a message from sender
// to receiver, and an actor from one scheduler thread to the next, with atomics TSan
// never sees, so every message payload and every actor's state would be reported as a
// race. These definitions take the place of CAF's own (the executable's symbols come
// first for libcaf_core's calls and vtables), tell TSan about the happens-before edges
// CAF guarantees, and call CAF's definitions:
//   - a message's enqueue happens before its handler runs (release/acquire on the
//     mailbox element), for event-based, detached and blocking actors;
//   - an actor's resume (a run of its handlers) happens before its next resume, and
//     its launch before its first one (release/acquire on the actor);
//   - messages still in the mailbox when an actor terminates are destroyed after their
//     enqueue (release on a second address of the actor, acquired by its cleanup);
//   - the last strong reference to an actor is dropped (and the actor destroyed) after
//     every other drop and every run of the actor.
// Nothing else is assumed: two actors that share memory without messages still race.
#include <caf/actor_control_block.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/scheduled_actor.hpp>
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>

namespace {

/// CAF's own definition of `symbol` (the next one after this executable's).
template <class Fn>
Fn caf_original(const char* symbol) {
  void* f = dlsym(RTLD_NEXT, symbol);
  if (f == nullptr) {
    std::fprintf(stderr, "tsan_caf_sync: %s not found in libcaf_core\n", symbol);
    std::abort();
  }
  return reinterpret_cast<Fn>(f);
}

/// A second sync address per actor, for its mailbox as a whole (see cleanup).
void* mailbox_sync(const void* actor) {
  return const_cast<char*>(static_cast<const char*>(actor)) + 1;
}

}  // namespace

namespace caf {

void scheduled_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using fn = void (*)(scheduled_actor*, mailbox_element_ptr, execution_unit*);
  static const auto original = caf_original<fn>(
    "_ZN3caf15scheduled_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8"
    "disposerEEPNS_14execution_unitE");
  __tsan_release(ptr.get());
  __tsan_release(mailbox_sync(this));
  original(this, std::move(ptr), eu);
}

bool scheduled_actor::cleanup(error&& fail_state, execution_unit* host) {
  using fn = bool (*)(scheduled_actor*, error&&, execution_unit*);
  static const auto original =
    caf_original<fn>("_ZN3caf15scheduled_actor7cleanupEONS_5errorEPNS_14execution_unitE");
  __tsan_acquire(mailbox_sync(this));  // destroys what is left in the mailbox
  return original(this, std::move(fail_state), host);
}

void intrusive_ptr_release(actor_control_block* x) {
  using fn = void (*)(actor_control_block*);
  static const auto original =
    caf_original<fn>("_ZN3caf21intrusive_ptr_releaseEPNS_19actor_control_blockE");
  __tsan_release(x);
  if (x->strong_refs.load() == 1) {  // this drop destroys the actor
    __tsan_acquire(x);
    __tsan_acquire(x->get());
    __tsan_acquire(mailbox_sync(x->get()));
  }
  original(x);
}

void blocking_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using fn = void (*)(blocking_actor*, mailbox_element_ptr, execution_unit*);
  static const auto original = caf_original<fn>(
    "_ZN3caf14blocking_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8"
    "disposerEEPNS_14execution_unitE");
  __tsan_release(ptr.get());
  original(this, std::move(ptr), eu);
}

intrusive::task_result scheduled_actor::mailbox_visitor::operator()(mailbox_element& x) {
  using fn = intrusive::task_result (*)(mailbox_visitor*, mailbox_element&);
  static const auto original =
    caf_original<fn>("_ZN3caf15scheduled_actor15mailbox_visitorclERNS_15mailbox_elementE");
  __tsan_acquire(&x);
  __tsan_acquire(static_cast<void*>(self));
  const auto result = original(this, x);
  // Before CAF may hand the actor to another thread, not only when resume returns.
  __tsan_release(static_cast<void*>(self));
  return result;
}

intrusive::task_result blocking_actor::mailbox_visitor::operator()(mailbox_element& x) {
  using fn = intrusive::task_result (*)(mailbox_visitor*, mailbox_element&);
  static const auto original =
    caf_original<fn>("_ZN3caf14blocking_actor15mailbox_visitorclERNS_15mailbox_elementE");
  __tsan_acquire(&x);
  return original(this, x);
}

void scheduled_actor::launch(execution_unit* eu, bool lazy, bool hide) {
  using fn = void (*)(scheduled_actor*, execution_unit*, bool, bool);
  static const auto original =
    caf_original<fn>("_ZN3caf15scheduled_actor6launchEPNS_14execution_unitEbb");
  __tsan_release(static_cast<void*>(this));
  original(this, eu, lazy, hide);
}

bool scheduled_actor::activate(execution_unit* eu) {
  using fn = bool (*)(scheduled_actor*, execution_unit*);
  static const auto original =
    caf_original<fn>("_ZN3caf15scheduled_actor8activateEPNS_14execution_unitE");
  __tsan_acquire(static_cast<void*>(this));
  const bool result = original(this, eu);  // runs the actor's init function once
  __tsan_release(static_cast<void*>(this));
  return result;
}

resumable::resume_result scheduled_actor::resume(execution_unit* eu, size_t max_throughput) {
  using fn = resumable::resume_result (*)(scheduled_actor*, execution_unit*, size_t);
  static const auto original =
    caf_original<fn>("_ZN3caf15scheduled_actor6resumeEPNS_14execution_unitEm");
  __tsan_acquire(static_cast<void*>(this));
  const auto result = original(this, eu, max_throughput);
  __tsan_release(static_cast<void*>(this));
  return result;
}

}  // namespace caf
