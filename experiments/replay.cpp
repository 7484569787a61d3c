// run_replay(): a strategy driven offline by logged reward streams.
#include "experiments/replay.hpp"

#include <deque>
#include <memory>

#include "algorithms/pass_rate.hpp"
#include "algorithms/step_strategy.hpp"
#include "experiments/replay_log.hpp"

namespace adarl {
namespace {

/// The one step a replay runs, for the budget ledger.
constexpr uint64_t replay_step = 0;

/// Drives one strategy as the tracker would: the batch starts the step, each request is
/// served from the logged streams (request index i = the i-th logged reward), results are
/// fed one at a time in request order (FIFO), and DAPO's requests for more prompts are
/// served from the reserve in log order. Single use; O(samples).
class replay_driver {
 public:
  replay_driver(const std::vector<replay_prompt>& log, size_t batch,
                const strategy_config& config, std::string name)
      : log_(log),
        batch_(batch),
        name_(std::move(name)),
        strategy_(make_strategy(config)),
        finished_(log.size()) {}

  /// Runs the step to its end; fails on a stream shorter than a request.
  result<bool> run();
  /// The finished groups in log order and what they spent. Precondition: run() succeeded.
  replay_report report(const strategy_config& config);

 private:
  result<bool> act(decisions& d);
  result<bool> serve(const sample_request& request);
  result<bool> draw(uint32_t wanted);
  /// Gives the next log line a slot and returns its prompt entry.
  prompt_entry next_entry();

  const std::vector<replay_prompt>& log_;
  size_t batch_;
  std::string name_;
  std::unique_ptr<step_strategy> strategy_;
  std::vector<size_t> slot_line_;  ///< Slot -> index in log_. Invariant: slots in order.
  size_t next_ = 0;                ///< First log index not given to the strategy.
  std::deque<sample_result> pending_;
  budget_ledger ledger_;
  std::vector<std::optional<finished_group>> finished_;  ///< By index in log_.
};

prompt_entry replay_driver::next_entry() {
  const auto& p = log_[next_];
  // The prior the tracker would pass: the logged p_hat with the pseudo-count of the
  // default Ada-EMA prior, or that prior alone.
  const beta_ema_params params;
  prompt_entry e{next_,
                 p.p_hat ? beta_posterior::from_mean(*p.p_hat, params.alpha + params.beta)
                         : posterior(beta_ema_counts{}, params)};
  slot_line_.push_back(next_++);
  return e;
}

result<bool> replay_driver::run() {
  std::vector<prompt_entry> batch;
  while (next_ < batch_) batch.push_back(next_entry());
  decisions d;
  strategy_->start(batch, d);
  if (auto ok = act(d); !ok) return ok;
  while (!pending_.empty()) {
    const sample_result r = pending_.front();
    pending_.pop_front();
    d.clear();
    // Every (slot, index) is served once, so anything but accepted is a strategy bug.
    if (strategy_->on_result(r, d) != result_status::accepted)
      return error{"internal error: the strategy refused a result it requested"};
    ledger_.charge(replay_step, /*samples=*/1, r.tokens);
    if (auto ok = act(d); !ok) return ok;
  }
  if (!strategy_->done())
    return error{"internal error: the strategy stopped before finishing every prompt"};
  return true;
}

result<bool> replay_driver::act(decisions& d) {
  for (const auto& request : d.requests)
    if (auto ok = serve(request); !ok) return ok;
  for (auto& g : d.finished) finished_[slot_line_.at(g.slot)] = std::move(g);
  return d.prompts_wanted > 0 ? draw(d.prompts_wanted) : result<bool>(true);
}

result<bool> replay_driver::serve(const sample_request& request) {
  const auto& p = log_[slot_line_.at(request.slot)];
  const uint64_t need = uint64_t{request.first_index} + request.count;
  if (need > p.rewards.size())
    return error{prompt_where(name_, p.line, p.id) + "the strategy needs at least " +
                 std::to_string(need) + " rewards, the line has " +
                 std::to_string(p.rewards.size())};
  for (uint32_t i = request.first_index; i < need; ++i)
    pending_.push_back({request.slot, i, static_cast<float>(p.rewards[i]),
                        p.tokens.empty() ? 0u : p.tokens[i]});
  return true;
}

result<bool> replay_driver::draw(uint32_t wanted) {
  std::vector<prompt_entry> extra;
  while (extra.size() < wanted && next_ < log_.size()) extra.push_back(next_entry());
  // Fewer than wanted tells the strategy that the reserve is exhausted.
  decisions d;
  strategy_->add_prompts(extra, d);
  return act(d);
}

replay_report replay_driver::report(const strategy_config& config) {
  replay_report out;
  out.config = config;
  for (size_t i = 0; i < log_.size(); ++i) {
    if (!finished_[i]) continue;  // a reserve prompt never drawn
    replay_group g{log_[i].id, log_[i].line, {}, std::move(*finished_[i])};
    for (auto k : g.group.kept) g.logged_rewards.push_back(log_[i].rewards.at(k));
    out.summary.add(g.group);
    out.groups.push_back(std::move(g));
  }
  out.spent = ledger_.close_step(replay_step);
  out.unused_prompts = static_cast<uint32_t>(log_.size() - next_);
  return out;
}

/// The batch size: every line, or --batch-size lines for DAPO.
result<size_t> batch_size(const replay_options& o, const strategy_config& c,
                          size_t lines) {
  if (!o.batch_size) return lines;
  if (c.kind != strategy_kind::dapo)
    return error{"--batch-size: only dapo draws prompts beyond the batch; " +
                 std::string(strategy_name(c.kind)) + " uses every line as the batch"};
  if (*o.batch_size == 0 || *o.batch_size > lines)
    return error{"--batch-size " + std::to_string(*o.batch_size) +
                 ": expected between 1 and the " + std::to_string(lines) +
                 " prompts of the input"};
  return size_t{*o.batch_size};
}

/// Est spends its budget exactly: it must be within what the prompts can take.
result<bool> check_budget(const strategy_config& c, size_t prompts) {
  const bool est =
      c.kind == strategy_kind::ada_est || c.kind == strategy_kind::ada_est_online;
  if (!est || c.est.budget == 0) return true;
  const uint64_t lo = prompts * c.est.n_min, hi = prompts * c.est.n_max;
  if (c.est.budget >= lo && c.est.budget <= hi) return true;
  return error{"budget " + std::to_string(c.est.budget) + ": " + std::to_string(prompts) +
               " prompts with n_min " + std::to_string(c.est.n_min) + " and n_max " +
               std::to_string(c.est.n_max) + " take between " + std::to_string(lo) +
               " and " + std::to_string(hi) + " samples"};
}

}  // namespace

result<replay_report> run_replay(const replay_options& options, std::istream& in,
                                 const std::string& input_name) {
  auto config = resolve_strategy(options);
  if (!config) return config.err();
  auto log = read_replay_log(in, input_name);
  if (!log) return log.err();
  auto batch = batch_size(options, *config, log->size());
  if (!batch) return batch.err();
  if (auto ok = check_budget(*config, *batch); !ok) return ok.err();
  replay_driver driver(*log, *batch, *config, input_name);
  if (auto ok = driver.run(); !ok) return ok.err();
  return driver.report(*config);
}

}  // namespace adarl
