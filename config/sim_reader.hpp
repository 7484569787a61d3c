#pragma once
// Readers of the config sections that `adarl simulate` and `adarl run` share.

#include "algorithms/pass_rate.hpp"
#include "config/config_reader.hpp"
#include "engines/sim/simulated_policy.hpp"

namespace adarl {

/// Reads a simulated-policy section (mean_logit, sd_logit, optimizer, shared_lr,
/// prompt_lr, adam_shared_lr, adam_prompt_lr) into `c`, keeping absent keys; step sizes
/// and sd_logit must be >= 0. Problems are recorded in the map's errors with their
/// path; unknown keys are rejected.
void read_sim_model(config_map m, sim_model_config& c);

/// Reads a pass-rate estimator section (lambda in (0, 1], alpha > 0, beta > 0) into
/// `c`, keeping absent keys. Problems are recorded with their path; unknown keys are
/// rejected.
void read_estimator(config_map m, beta_ema_params& c);

}  // namespace adarl
