#pragma once
// How an actor's unexpected exception ends the run instead of hanging it.

#include <caf/fwd.hpp>

namespace adarl {

/// Makes an exception that escapes one of `self`'s handlers (a bug, std::bad_alloc, a
/// torch error nobody caught) end the actor with an error that carries `name` and the
/// exception's message, instead of CAF's bare `unhandled_exception`. The pipeline
/// supervisor monitors every actor and turns that exit reason into the run's error.
/// Call once, from the actor's own initialisation.
void report_exceptions(caf::scheduled_actor* self, const char* name);

}  // namespace adarl
