#include "actors/metrics_sink.hpp"

#include <caf/all.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "actors/failure.hpp"
#include "algorithms/step_types.hpp"
#include "base/append_file.hpp"
#include "base/atomic_file.hpp"
#include "base/json_lines.hpp"

namespace adarl {

namespace {

/// The estimator's calibration on this step (docs/algorithm.md "The learned estimator"): mean Brier score and log
/// loss per sample of the priors the prompts were drawn with, the same on first-seen
/// prompts, and the reliability bins [mean predicted, mean observed, samples].
void add_calibration(nlohmann::json& j, const step_report& s) {
  if (s.prior_samples == 0) return;
  j["prior_brier"] = s.prior_brier / double(s.prior_samples);
  j["prior_log_loss"] = s.prior_log_loss / double(s.prior_samples);
  if (s.first_seen_samples > 0) {
    j["first_seen_prompts"] = s.first_seen_prompts;
    j["first_seen_brier"] = s.first_seen_brier / double(s.first_seen_samples);
    j["first_seen_log_loss"] = s.first_seen_log_loss / double(s.first_seen_samples);
  }
  nlohmann::json bins = nlohmann::json::array();
  for (size_t b = 0; b < s.reliability_samples.size(); ++b) {
    const double n = double(s.reliability_samples[b]);
    if (n == 0 || b >= s.reliability_predicted.size() || b >= s.reliability_observed.size())
      continue;
    bins.push_back({s.reliability_predicted[b] / n, s.reliability_observed[b] / n,
                    s.reliability_samples[b]});
  }
  j["reliability"] = bins;
}

/// The step's per-prompt visits, column by column ("visits": {"prompt", "predicted",
/// "samples", "positives", "exit"}): what the tracker predicted for each prompt it drew
/// and what its pool returned. Absent when the step had none.
void add_visits(nlohmann::json& j, const step_report& s) {
  const size_t n = s.visit_prompts.size();
  if (n == 0 || s.visit_predicted.size() != n || s.visit_samples.size() != n ||
      s.visit_positives.size() != n || s.visit_exits.size() != n)
    return;
  nlohmann::json exits = nlohmann::json::array();
  for (uint32_t e : s.visit_exits)
    exits.push_back(e < exit_keys.size() ? std::string(exit_keys[e]) : "unknown");
  nlohmann::json predicted = nlohmann::json::array();
  for (double p : s.visit_predicted) predicted.push_back(p < 0 ? nlohmann::json(nullptr) : nlohmann::json(p));
  j["visits"] = {{"prompt", s.visit_prompts},
                 {"predicted", std::move(predicted)},
                 {"samples", s.visit_samples},
                 {"positives", s.visit_positives},
                 {"exit", std::move(exits)}};
}
// The scalar columns of metrics.csv, as JSON pointers into a step line.
const char* const csv_columns[] = {
    "step", "policy_version", "real_reward", "zero_gradient_fraction", "samples",
    "tokens", "cumulative_samples", "cumulative_tokens", "samples_per_prompt_mean",
    "samples_per_prompt_max", "lag_mean", "lag_max", "loss", "grad_norm", "entropy",
    "clip_fraction", "generator_busy", "time_generation", "time_train", "time_wait",
    "time_publish", "time_step", "elapsed", "heldout_greedy", "heldout_sampled"};
}  // namespace

nlohmann::json step_json(const step_record& r, const metrics_totals& t,
                         const std::optional<eval_report>& eval) {
  const step_report& s = r.sampling;
  nlohmann::json j;
  // The fields shown as they are, by their field lists (messages/messages.hpp); the rest
  // in their own form below.
  for_each_field(step_report_fields, [&](const auto& f) {
    if (f.has(field_line)) j[f.name] = s.*(f.member);
  });
  for_each_field(step_record_fields, [&](const auto& f) {
    if constexpr (requires { j[f.name] = r.*(f.member); })  // not the nested report
      if (f.has(field_line)) j[f.name] = r.*(f.member);
  });
  j["zero_gradient_fraction"] = s.trainable ? double(s.zero_gradient) / s.trainable : 0.0;
  j["samples_per_prompt_mean"] = s.prompts ? double(s.samples) / s.prompts : 0.0;
  j["samples_per_prompt_max"] = s.max_samples;
  j["samples_by_pass_rate"] = {{"prompts", s.rate_prompts}, {"samples", s.rate_samples}};
  nlohmann::json exits = nlohmann::json::object();
  for (size_t k = 0; k < exit_keys.size(); ++k)
    exits[std::string(exit_keys[k])] = k < s.exits.size() ? s.exits[k] : 0u;
  j["exits"] = exits;
  nlohmann::json exit_samples = nlohmann::json::object();
  for (size_t k = 0; k < exit_keys.size(); ++k)
    exit_samples[std::string(exit_keys[k])] = k < s.exit_samples.size() ? s.exit_samples[k] : 0u;
  j["exit_samples"] = exit_samples;
  add_visits(j, s);
  // Absent when no generator reported its load since the previous line (short steps).
  if (t.load_wall_seconds > 0) j["generator_busy"] = t.busy_seconds / t.load_wall_seconds;
  j["time_generation"] = s.generation_seconds;
  j["time_train"] = r.train_seconds;
  j["time_wait"] = r.wait_seconds;
  j["time_publish"] = r.publish_seconds;
  j["time_step"] = r.wall_seconds;
  if (r.reduced_bytes > 0) {  // replicated learners only
    j["reduced_bytes"] = r.reduced_bytes;
    j["time_reduce"] = r.reduce_seconds;
  }
  j["elapsed"] = r.elapsed_seconds;
  if (!r.nonfinite.empty()) j["nonfinite"] = r.nonfinite;  // the update was not applied
  nlohmann::json reasons = nlohmann::json::object();
  for (size_t k = 0; k < s.zero_reasons.size() && k < s.zero_counts.size(); ++k)
    reasons[s.zero_reasons[k]] = s.zero_counts[k];
  j["zero_reward_reasons"] = reasons;
  add_calibration(j, s);
  if (const auto& c = t.cluster)
    j["cluster"] = {{"workers", c->workers},
                    {"workers_joined", c->joined},
                    {"workers_lost", c->lost},
                    {"orders_reissued", c->orders_reissued},
                    {"stale_results", c->stale_results},
                    {"weights_versions", c->weights_versions},
                    {"weights_bytes", c->weights_bytes},
                    {"weights_seconds", c->weights_seconds},
                    {"weights_delivered", c->weights_delivered}};
  if (eval) {
    j["heldout_version"] = eval->version;
    if (eval->greedy_accuracy >= 0) j["heldout_greedy"] = eval->greedy_accuracy;
    if (eval->sampled_accuracy >= 0) j["heldout_sampled"] = eval->sampled_accuracy;
  }
  return j;
}

nlohmann::json eval_json(const eval_report& e) {
  nlohmann::json j;
  j["version"] = e.version;
  j["prompts"] = e.prompts;
  if (e.greedy_accuracy >= 0) j["greedy"] = e.greedy_accuracy;
  if (e.sampled_accuracy >= 0) j["sampled"] = e.sampled_accuracy;
  j["level_prompts"] = e.level_prompts;
  j["level_accuracy"] = e.level_greedy;
  j["prompt_greedy"] = e.prompt_greedy;
  j["prompt_sampled"] = e.prompt_sampled;
  j["seconds"] = e.seconds;
  return j;
}

std::string csv_header() {
  std::string h;
  for (const char* c : csv_columns) h += (h.empty() ? "" : ",") + std::string(c);
  return h;
}

std::string csv_row(const nlohmann::json& line) {
  std::string row;
  bool first = true;
  for (const char* c : csv_columns) {
    if (!first) row += ",";
    first = false;
    if (line.contains(c)) row += line[c].dump();  // absent (no evaluation): empty cell
  }
  return row;
}

std::string progress_line(const nlohmann::json& line, uint64_t total_steps,
                          double last_accuracy) {
  const double elapsed = line.value("elapsed", 0.0);
  const uint64_t done = line.value("policy_version", uint64_t(0));
  const double rate = elapsed > 0 ? line.value("cumulative_samples", 0.0) / elapsed : 0.0;
  const double eta = done ? elapsed / double(done) * double(total_steps - std::min(done, total_steps)) : 0.0;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "step %llu/%llu  reward %.3f  heldout %s  zero-grad %.2f  %.0f samples/s  ETA %.0fs",
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_steps),
                line.value("real_reward", 0.0),
                last_accuracy >= 0 ? std::to_string(last_accuracy).substr(0, 5).c_str() : "-",
                line.value("zero_gradient_fraction", 0.0), rate, eta);
  return buf;
}

namespace {

uint64_t get_u64(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

result<metrics_totals> resume_metrics(const std::string& dir, uint64_t version) {
  auto steps = read_json_lines(dir + "/metrics.jsonl", /*missing_ok=*/true);
  if (!steps) return steps.err();
  auto evals = read_json_lines(dir + "/eval.jsonl", /*missing_ok=*/true);
  if (!evals) return evals.err();
  metrics_totals t;
  std::string jsonl, csv = csv_header() + "\n", eval;
  for (const auto& j : *steps) {
    if (get_u64(j, "policy_version") > version) continue;
    t.samples = get_u64(j, "cumulative_samples");
    t.tokens = get_u64(j, "cumulative_tokens");
    t.last_step_samples = get_u64(j, "samples");
    jsonl += j.dump() + "\n";
    csv += csv_row(j) + "\n";
  }
  for (const auto& j : *evals) {
    if (get_u64(j, "version") > version) continue;
    t.evaluated = t.evaluated || get_u64(j, "version") == version;
    eval += j.dump() + "\n";
  }
  for (auto [file, text] : {std::pair{"/metrics.jsonl", &jsonl}, std::pair{"/metrics.csv", &csv},
                            std::pair{"/eval.jsonl", &eval}})
    if (auto ok = write_file_atomic(dir + file, *text); !ok) return ok.err();
  return t;
}

namespace {

struct metrics_state {
  metrics_setup setup;
  append_file jsonl, csv, evals;
  metrics_totals totals;
  std::optional<eval_report> pending_eval;
  double last_accuracy = -1;
  bool tty = false;
  /// The first failed write, "metrics: FILE: cannot write: REASON"; once set, nothing
  /// more is written (the files end with their last complete line).
  std::string failure;
  logger_ptr log;
  static inline const char* name = "metrics";
};

using self_ptr = metrics_actor::stateful_pointer<metrics_state>;

/// Records the first failure and tells the supervisor, which ends the run.
void fail(self_ptr self, const error& e) {
  auto& s = self->state;
  if (!s.failure.empty()) return;
  s.failure = "metrics: " + e.message;
  if (s.setup.supervisor) caf::anon_send(s.setup.supervisor, stop_atom::value, s.failure);
}

/// Appends `bytes` to `f`; false (nothing written) after any failure.
bool append(self_ptr self, append_file& f, const std::string& bytes) {
  if (!self->state.failure.empty()) return false;
  auto ok = f.append(bytes);
  if (!ok) fail(self, ok.err());
  return ok.ok();
}

/// Flushes the three files to the disk (and closes them with `close`): true, or the
/// error of the first failed write or flush.
caf::result<bool> sync_all(self_ptr self, bool close) {
  auto& s = self->state;
  for (append_file* f : {&s.jsonl, &s.csv, &s.evals}) {
    if (!s.failure.empty()) break;
    auto ok = close ? f->close() : f->sync();
    if (!ok) fail(self, ok.err());
  }
  if (!s.failure.empty()) return caf::make_error(caf::sec::runtime_error, s.failure);
  return true;
}

/// Opens the files (appending on resume) and writes the CSV header of a fresh file.
result<bool> open_files(metrics_state& st, const metrics_setup& setup) {
  std::error_code ec;
  std::filesystem::create_directories(setup.dir, ec);
  if (ec) return error{setup.dir + ": cannot create the directory: " + ec.message()};
  const bool fresh_csv = !setup.append || !std::filesystem::exists(setup.dir + "/metrics.csv");
  for (auto [file, name] : {std::pair{&st.jsonl, "/metrics.jsonl"},
                            std::pair{&st.csv, "/metrics.csv"},
                            std::pair{&st.evals, "/eval.jsonl"}}) {
    auto f = append_file::open(setup.dir + name, /*truncate=*/!setup.append);
    if (!f) return f.err();
    *file = std::move(*f);
  }
  if (fresh_csv) return st.csv.append(csv_header() + "\n");
  return true;
}

void write_step(self_ptr self, const step_record& r) {
  auto& s = self->state;
  const auto line = step_json(r, s.totals, s.pending_eval);
  s.pending_eval.reset();
  s.totals.busy_seconds = s.totals.load_wall_seconds = 0;
  if (!append(self, s.jsonl, line.dump() + "\n") ||
      !append(self, s.csv, csv_row(line) + "\n"))
    return;
  s.log->debug("step {}: real_reward {:.3f}, {} samples, {} tokens", r.sampling.step,
               r.sampling.real_reward, r.sampling.samples, r.sampling.tokens);
  if (s.setup.observer) s.setup.observer->on_step(line);
  if (s.tty)
    std::fprintf(stderr, "\r%s\033[K",
                 progress_line(line, s.setup.total_steps, s.last_accuracy).c_str());
}

void write_eval(self_ptr self, const eval_report& e) {
  auto& s = self->state;
  if (!append(self, s.evals, eval_json(e).dump() + "\n")) return;
  s.last_accuracy = e.greedy_accuracy >= 0 ? e.greedy_accuracy : e.sampled_accuracy;
  s.pending_eval = e;
  std::string acc;
  if (e.greedy_accuracy >= 0) acc += fmt::format(" greedy {:.3f}", e.greedy_accuracy);
  if (e.sampled_accuracy >= 0) acc += fmt::format(" sampled {:.3f}", e.sampled_accuracy);
  s.log->info("held-out accuracy of version {}:{} ({} prompts, {:.1f} s)", e.version, acc,
              e.prompts, e.seconds);
  if (s.setup.observer) s.setup.observer->on_eval(e);
}

metrics_actor::behavior_type metrics_fun(self_ptr self, metrics_setup setup) {
  report_exceptions(self, "metrics");
  auto& st = self->state;
  st.tty = setup.progress && isatty(STDERR_FILENO);
  st.log = component_log(setup.log, "metrics");
  st.totals = setup.start;
  st.setup = std::move(setup);
  if (auto ok = open_files(st, st.setup); !ok) fail(self, ok.err());
  return {
      [=](record_atom, const step_record& r) { write_step(self, r); },
      [=](eval_atom, const eval_report& e) { write_eval(self, e); },
      [=](load_atom, const generator_load& l) {
        self->state.totals.busy_seconds += l.busy_seconds;
        self->state.totals.load_wall_seconds += l.wall_seconds;
      },
      [=](cluster_atom, const cluster_stats& c) { self->state.totals.cluster = c; },
      [=](save_atom) -> caf::result<bool> { return sync_all(self, /*close=*/false); },
      [=](flush_atom) -> caf::result<bool> {
        if (self->state.tty) std::fprintf(stderr, "\n");
        return sync_all(self, /*close=*/true);
      },
  };
}

}  // namespace

metrics_actor spawn_metrics(caf::actor_system& sys, metrics_setup setup) {
  return sys.spawn(metrics_fun, std::move(setup));
}

}  // namespace adarl
