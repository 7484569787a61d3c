#include <memory>

#include "algorithms/budget_strategy.hpp"
#include "algorithms/est_strategy.hpp"
#include "algorithms/seq_strategy.hpp"
#include "algorithms/step_strategy.hpp"
#include "algorithms/uniform_strategy.hpp"

namespace adarl {

std::unique_ptr<step_strategy> make_strategy(const strategy_config& config) {
  switch (config.kind) {
    case strategy_kind::ada_seq:
      return std::make_unique<seq_strategy>(config.seq);
    case strategy_kind::ada_est:
      return std::make_unique<est_strategy>(config.est, /*online=*/false);
    case strategy_kind::ada_est_online:
      return std::make_unique<est_strategy>(config.est, /*online=*/true);
    case strategy_kind::ada_budget:
      return std::make_unique<budget_strategy>(config.budget);
    case strategy_kind::grpo:
    case strategy_kind::dr_grpo:
    case strategy_kind::dapo:
      return std::make_unique<uniform_strategy>(config.uniform, config.kind);
  }
  return nullptr;
}

}  // namespace adarl
