#pragma once
// How an actor's unexpected exception, or a failed write of the run's log, ends the run
// instead of hanging it or going unnoticed.

#include <caf/fwd.hpp>

#include <string>

#include "actors/log.hpp"

namespace adarl {

/// Makes an exception that escapes one of `self`'s handlers (a bug, std::bad_alloc, a
/// torch error nobody caught) end the actor with an error that carries `name` and the
/// exception's message, instead of CAF's bare `unhandled_exception`. The pipeline
/// supervisor monitors every actor and turns that exit reason into the run's error.
/// Call once, from the actor's own initialisation.
void report_exceptions(caf::scheduled_actor* self, const char* name);

/// A copy of `log` (the same sinks, level and name) whose failed writes end the run: the
/// first one (a log file on a full disk: the sink's error, which names the file) is
/// sent to `supervisor` as (stop_atom, "log: " + error), the way an actor reports that
/// it cannot go on; later ones are dropped. `log` itself keeps its own error handler.
/// The pipeline's components log through copies of the result. Thread-safe.
logger_ptr log_failures_end_run(const logger_ptr& log, const caf::actor& supervisor);

/// The text of an error an actor replied or quit with: the string of
/// make_error(sec::runtime_error, text), else CAF's rendering of the error.
std::string error_text(const caf::actor_system& sys, const caf::error& e);

}  // namespace adarl
