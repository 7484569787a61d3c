#pragma once
// The listening addresses of a run, tried before any long work: a busy or bad
// actors.remote_*.bind is bad input (exit 2) at start-up, not after a warm start.

#include "base/result.hpp"
#include "pipelines/pipeline_config.hpp"

namespace adarl {

/// Binds every ZeroMQ endpoint the config listens on (actors.remote_verifiers.bind,
/// actors.remote_generators.bind), all at once so that two equal ones collide, then
/// releases them. An endpoint that cannot be bound is an error naming its key, the
/// endpoint and ZeroMQ's reason. Blocks for the few milliseconds the binds take; another
/// process may still take a port between this check and the run's own bind.
result<bool> check_listen_endpoints(const pipeline_config& c);

}  // namespace adarl
