#include "runtime/metrics_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <nlohmann/json.hpp>

namespace adarl {

namespace {

double number(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

uint64_t count(const nlohmann::json& j, const char* key, uint64_t fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return fallback;
  return it->is_number_unsigned() ? it->get<uint64_t>()
                                  : uint64_t(std::max<int64_t>(0, it->get<int64_t>()));
}

/// Writes the families one after another.
class page {
 public:
  explicit page(const std::string& run) : labels_("run=\"" + escape_label_value(run) + "\"") {}

  void counter(const char* name, const char* help, uint64_t v) {
    family(name, "counter", help);
    sample(name, "", std::to_string(v));
  }
  void gauge(const char* name, const char* help, double v) {
    family(name, "gauge", help);
    sample(name, "", sample_value(v));
  }
  void gauge(const char* name, const char* help, uint64_t v) {
    family(name, "gauge", help);
    sample(name, "", std::to_string(v));
  }
  void family(const char* name, const char* type, const char* help) {
    text_ += std::string("# HELP ") + name + " " + escape_help(help) + "\n# TYPE " + name + " " +
             type + "\n";
  }
  /// A sample with `extra` labels ("mode=\"greedy\"") after the run's.
  void sample(const char* name, const std::string& extra, const std::string& value) {
    text_ += std::string(name) + "{" + labels_ + (extra.empty() ? "" : "," + extra) + "} " +
             value + "\n";
  }
  std::string take() { return std::move(text_); }

 private:
  std::string labels_;
  std::string text_;
};

}  // namespace

void add_step_line(run_figures& f, const nlohmann::json& line) {
  f.stepped = true;
  f.steps = count(line, "policy_version", f.steps);
  f.samples = count(line, "cumulative_samples", f.samples);
  f.tokens = count(line, "cumulative_tokens", f.tokens);
  f.elapsed = number(line, "elapsed", f.elapsed);
  f.real_reward = number(line, "real_reward", f.real_reward);
  f.zero_gradient_fraction = number(line, "zero_gradient_fraction", f.zero_gradient_fraction);
  const double seconds = number(line, "time_step", 0);
  f.samples_per_second = seconds > 0 ? number(line, "samples", 0) / seconds : 0;
  f.tokens_per_second = seconds > 0 ? number(line, "tokens", 0) / seconds : 0;
  f.lag_mean = number(line, "lag_mean", f.lag_mean);
  f.lag_max = count(line, "lag_max", f.lag_max);
  if (line.contains("generator_busy")) f.generator_busy = number(line, "generator_busy", 0);
  if (auto c = line.find("cluster"); c != line.end() && c->is_object()) {
    f.workers = count(*c, "workers", f.workers);
    f.workers_joined = count(*c, "workers_joined", f.workers_joined);
    f.workers_lost = count(*c, "workers_lost", f.workers_lost);
    f.orders_reissued = count(*c, "orders_reissued", f.orders_reissued);
  }
}

void add_eval(run_figures& f, const eval_report& e) {
  if (f.heldout_version && *f.heldout_version > e.version) return;
  f.heldout_version = e.version;
  f.heldout_greedy.reset();
  f.heldout_sampled.reset();
  if (e.greedy_accuracy >= 0) f.heldout_greedy = e.greedy_accuracy;
  if (e.sampled_accuracy >= 0) f.heldout_sampled = e.sampled_accuracy;
}

void add_tracker(run_figures& f, const tracker_status& s) { f.tracker = s; }

std::string exposition_text(const run_figures& f) {
  page p(f.run);
  p.counter("adarl_steps_total", "Training steps done (the learner's policy version).", f.steps);
  p.gauge("adarl_steps_planned", "Training steps the run is configured for (tracker.steps).",
          f.steps_planned);
  p.counter("adarl_samples_total", "Accepted samples, cumulative (the compute budget).",
            f.samples);
  p.counter("adarl_tokens_total", "Generated tokens of accepted samples, cumulative.", f.tokens);
  if (f.stepped) {
    p.gauge("adarl_elapsed_seconds", "Seconds since the run started, at the last step.",
            f.elapsed);
    p.gauge("adarl_real_reward",
            "Mean reward of each prompt's first round at the last step (real_reward).",
            f.real_reward);
    p.gauge("adarl_zero_gradient_fraction",
            "Share of the last step's trainable groups whose advantages are all equal.",
            f.zero_gradient_fraction);
    p.gauge("adarl_samples_per_second", "Accepted samples per second over the last step.",
            f.samples_per_second);
    p.gauge("adarl_tokens_per_second",
            "Generated tokens of accepted samples per second over the last step.",
            f.tokens_per_second);
    p.gauge("adarl_lag_mean", "Mean policy lag (step - version) of the last step's samples.",
            f.lag_mean);
    p.gauge("adarl_lag_max", "Largest policy lag of the last step's samples.", f.lag_max);
  }
  if (f.generator_busy)
    p.gauge("adarl_generator_busy_ratio",
            "Share of generator wall time spent in the engine (the last step that measured it).",
            *f.generator_busy);
  if (f.tracker) {
    p.counter("adarl_results_total",
              "Scored completions received by the tracker (training and evaluation).",
              f.tracker->results);
    p.gauge("adarl_orders_in_flight", "Orders handed to generators and not answered yet.",
            f.tracker->in_flight);
    p.gauge("adarl_orders_queued", "Evaluation orders waiting at the tracker for generator credit.",
            f.tracker->queued);
  }
  p.gauge("adarl_workers", "Remote generator workers connected.", f.workers);
  p.counter("adarl_workers_joined_total",
            "Remote generator workers that joined (reconnections included).", f.workers_joined);
  p.counter("adarl_workers_lost_total",
            "Remote generator workers lost (silent, unreachable, failed or gone).",
            f.workers_lost);
  p.counter("adarl_orders_reissued_total", "Orders of lost remote workers handed out again.",
            f.orders_reissued);
  if (f.heldout_version) {
    p.family("adarl_heldout_accuracy", "gauge",
             "Held-out accuracy of the latest evaluation: greedy (one greedy completion per "
             "prompt) or sampled (mean reward of eval.samples completions).");
    if (f.heldout_greedy) p.sample("adarl_heldout_accuracy", "mode=\"greedy\"", sample_value(*f.heldout_greedy));
    if (f.heldout_sampled)
      p.sample("adarl_heldout_accuracy", "mode=\"sampled\"", sample_value(*f.heldout_sampled));
    p.gauge("adarl_heldout_version", "Policy version of the latest evaluation.",
            *f.heldout_version);
  }
  return p.take();
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char ch : v) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '"') out += "\\\"";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char ch : v) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '\n') out += "\\n";
    else out += ch;
  }
  return out;
}

std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace adarl
