#include "config/sim_reader.hpp"

#include <string>
#include <utility>

namespace adarl {
namespace {

void read_optimizer(config_map& m, sim_optimizer& out) {
  if (!m.has("optimizer")) {
    m.record("optimizer", std::string(sim_optimizer_name(out)));
    return m.allow("optimizer");
  }
  std::string name;
  const auto before = m.errors()->messages.size();
  m.get("optimizer", name);
  if (m.errors()->messages.size() != before) return;  // not a string: reported
  if (auto parsed = parse_sim_optimizer(name))
    out = *parsed;
  else
    m.fail("optimizer", "expected adam or sgd, got \"" + name + "\"");
}

}  // namespace

void read_sim_model(config_map m, sim_model_config& c) {
  m.get("mean_logit", c.mean_logit);
  m.get("sd_logit", c.sd_logit);
  read_optimizer(m, c.optimizer);
  m.get("shared_lr", c.shared_lr);
  m.get("prompt_lr", c.prompt_lr);
  m.get("adam_shared_lr", c.adam_shared_lr);
  m.get("adam_prompt_lr", c.adam_prompt_lr);
  m.get("feature_noise", c.feature_noise);
  if (!(c.feature_noise >= 0)) m.fail("feature_noise", "expected a number >= 0");
  if (c.sd_logit < 0) m.fail("sd_logit", "expected a number >= 0");
  for (const auto& [key, value] :
       {std::pair<const char*, double>{"shared_lr", c.shared_lr},
        {"prompt_lr", c.prompt_lr},
        {"adam_shared_lr", c.adam_shared_lr},
        {"adam_prompt_lr", c.adam_prompt_lr}})
    if (!(value >= 0)) m.fail(key, "expected a number >= 0");
  m.finish();
}

void read_estimator(config_map m, beta_ema_params& c) {
  m.get("lambda", c.lambda);
  m.get("alpha", c.alpha);
  m.get("beta", c.beta);
  if (!(c.lambda > 0 && c.lambda <= 1)) m.fail("lambda", "expected 0 < lambda <= 1");
  if (!(c.alpha > 0)) m.fail("alpha", "expected a positive number");
  if (!(c.beta > 0)) m.fail("beta", "expected a positive number");
  m.finish();
}

}  // namespace adarl
