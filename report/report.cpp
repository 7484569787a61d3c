#include "report/report.hpp"

#include "algorithms/convergence.hpp"
#include "report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace adarl {
namespace {

using json = nlohmann::json;
using opt = std::optional<double>;

// ---- Reading: the input becomes plain structs first; every access knows its path.

/// One node of the input with its key path ("strategies[2].runs[0]"), so that an
/// error names the key. Throws std::invalid_argument.
class node {
 public:
  node(const json& j, std::string path) : j_(&j), path_(std::move(path)) {}

  node at(const std::string& key) const {
    if (!j_->is_object()) fail("expected an object");
    const std::string path = path_.empty() ? key : path_ + "." + key;
    const auto it = j_->find(key);
    if (it == j_->end()) throw std::invalid_argument(path + ": missing");
    return node(*it, path);
  }
  /// The value under `key`, or nullopt when absent (an optional key).
  std::optional<node> find(const std::string& key) const {
    if (!j_->is_object()) fail("expected an object");
    const auto it = j_->find(key);
    if (it == j_->end()) return std::nullopt;
    return node(*it, path_.empty() ? key : path_ + "." + key);
  }
  std::vector<node> items() const {
    if (!j_->is_array()) fail("expected an array");
    std::vector<node> out;
    for (size_t i = 0; i < j_->size(); ++i)
      out.emplace_back((*j_)[i], path_ + "[" + std::to_string(i) + "]");
    return out;
  }
  /// The entries of an array that must have `n` of them.
  std::vector<node> items(size_t n) const {
    auto out = items();
    if (out.size() != n)
      fail(
          "expected " + std::to_string(n) + " entries, got " + std::to_string(out.size()),
          /*with_type=*/false);
    return out;
  }
  bool is_null() const { return j_->is_null(); }
  double number() const {
    if (!j_->is_number()) fail("expected a number");
    const double v = j_->get<double>();
    if (!std::isfinite(v)) fail("expected a finite number", /*with_type=*/false);
    return v;
  }
  /// Null and non-finite numbers read as "no value".
  opt number_or_null() const {
    if (j_->is_null()) return std::nullopt;
    if (!j_->is_number()) fail("expected a number or null");
    const double v = j_->get<double>();
    return std::isfinite(v) ? opt(v) : std::nullopt;
  }
  double count() const {
    const double v = number();
    if (v < 0 || v != std::floor(v)) fail("expected a non-negative integer", false);
    return v;
  }
  std::string text() const {
    if (!j_->is_string()) fail("expected a string");
    return j_->get<std::string>();
  }

 private:
  [[noreturn]] void fail(const std::string& what, bool with_type = true) const {
    std::string m = (path_.empty() ? std::string("(top level)") : path_) + ": " + what;
    if (with_type) m += std::string(", got ") + j_->type_name();
    throw std::invalid_argument(m);
  }
  const json* j_;
  std::string path_;
};

struct stat {
  opt median, min, max;
};
struct reach {
  stat s;
  double reached = 0, runs = 0;
};
/// A mean paired difference against the baseline with its 95% interval.
struct paired {
  opt mean, low, high;
  double n = 0;
};
using point = chart_point;
using line = chart_line;

/// The x axes the curves can be drawn against (the page lets the reader switch).
constexpr size_t axis_count = 4;
constexpr const char* axis_names[axis_count] = {"steps", "samples", "tokens", "seconds"};
constexpr const char* axis_titles[axis_count] = {"step", "cumulative samples",
                                                 "cumulative generated tokens",
                                                 "wall-clock seconds"};
constexpr size_t samples_axis = 1;

struct run_data {
  double seed = 0;
  std::string dir;
  /// Per axis: (x, held-out accuracy) per eval and (x, real reward) per step; an axis
  /// whose x the input lacks has no points.
  std::array<std::vector<point>, axis_count> accuracy, reward;
  std::vector<point> zero_grad;  ///< (step, zero-gradient fraction) per step.
  opt samples_to_heldout, samples_to_reward, final_accuracy;
  std::vector<double> bin_prompts, bin_samples;  ///< Per pass-rate bin.
};

struct strategy_data {
  std::string name;
  std::vector<run_data> runs;
  reach samples_heldout, tokens_heldout, samples_reward;
  opt ratio_samples, ratio_tokens, ratio_reward;
  stat final_accuracy;
  std::vector<std::optional<stat>> buckets;  ///< Per bucket label.
  // Optional (compare.json of the equal-steps protocol): the reach on every axis, the
  // held-out accuracy at equal steps and samples, and their paired differences.
  std::array<std::optional<reach>, axis_count> to_heldout, to_reward;
  std::optional<stat> at_steps, at_samples, auc_steps, fallback;
  std::optional<paired> paired_steps, paired_samples;
  /// Steps to the baseline's held-out accuracy at the step cap, as a fraction of the
  /// cap, and the wall-clock ratio there (compare.json's reach_reference_*).
  std::optional<reach> reach_ref;
  std::optional<stat> reach_ref_seconds;
};

constexpr size_t default_reward_window = 5;  ///< Without "smooth" in the input.

struct report_data {
  std::string title, baseline, metric;
  double budget = 0;
  opt target_heldout, target_reward;  ///< Null when no target was set.
  std::vector<std::string> bucket_labels;
  std::vector<double> bucket_prompts;
  size_t bins = 0;
  size_t smooth = default_reward_window;  ///< Steps in the real-reward moving average.
  opt equal_steps;                        ///< The equal-steps table's step, when any.
  std::vector<strategy_data> strategies;
};

stat read_stat(const node& n) {
  return {n.at("median").number_or_null(), n.at("min").number_or_null(),
          n.at("max").number_or_null()};
}

reach read_reach(const node& n) {
  reach r{read_stat(n)};
  r.reached = n.at("reached").count();
  r.runs = n.at("runs").count();
  return r;
}

void add_point(std::vector<point>& out, double x, opt y) {
  if (y) out.push_back({x, *y});
}

run_data read_run(const node& n, size_t bins) {
  run_data r;
  r.seed = n.at("seed").number();
  r.dir = n.at("dir").text();
  // The x of each axis at a point: step and samples required, tokens and seconds
  // optional (older compare.json files lack them).
  const auto xs = [](const node& p, const char* step_key, const char* seconds_key) {
    std::array<std::optional<double>, axis_count> x;
    x[0] = p.at(step_key).number();
    x[1] = p.at("cumulative_samples").number();
    if (auto t = p.find("cumulative_tokens")) x[2] = t->number_or_null();
    if (auto t = p.find(seconds_key)) x[3] = t->number_or_null();
    return x;
  };
  for (const auto& s : n.at("steps").items()) {
    const auto x = xs(s, "step", "elapsed");
    const opt y = s.at("real_reward").number_or_null();
    for (size_t a = 0; a < axis_count; ++a)
      if (x[a]) add_point(r.reward[a], *x[a], y);
    add_point(r.zero_grad, *x[0], s.at("zero_gradient_fraction").number_or_null());
  }
  for (const auto& e : n.at("evals").items()) {
    std::array<std::optional<double>, axis_count> x;
    if (e.find("step")) {
      x = xs(e, "step", "seconds");
    } else {  // older files: samples only
      x[samples_axis] = e.at("cumulative_samples").number();
    }
    const opt y = e.at("accuracy").number_or_null();
    for (size_t a = 0; a < axis_count; ++a)
      if (x[a]) add_point(r.accuracy[a], *x[a], y);
  }
  r.samples_to_heldout = n.at("samples_to_heldout").number_or_null();
  r.samples_to_reward = n.at("samples_to_reward").number_or_null();
  r.final_accuracy = n.at("final_accuracy").number_or_null();
  const node b = n.at("pass_rate_bins");
  for (const auto& v : b.at("prompts").items(bins)) r.bin_prompts.push_back(v.count());
  for (const auto& v : b.at("samples").items(bins)) r.bin_samples.push_back(v.count());
  return r;
}

strategy_data read_strategy(const node& n, size_t buckets, size_t bins) {
  strategy_data s;
  s.name = n.at("name").text();
  for (const auto& r : n.at("runs").items()) s.runs.push_back(read_run(r, bins));
  const node sum = n.at("summary");
  s.samples_heldout = read_reach(sum.at("samples_to_heldout"));
  s.tokens_heldout = read_reach(sum.at("tokens_to_heldout"));
  s.samples_reward = read_reach(sum.at("samples_to_reward"));
  s.ratio_samples = sum.at("ratio_heldout_samples").number_or_null();
  s.ratio_tokens = sum.at("ratio_heldout_tokens").number_or_null();
  s.ratio_reward = sum.at("ratio_reward_samples").number_or_null();
  s.final_accuracy = read_stat(sum.at("final_accuracy"));
  for (const auto& b : sum.at("bucket_accuracy").items(buckets))
    s.buckets.push_back(b.is_null() ? std::nullopt : std::optional<stat>(read_stat(b)));
  for (size_t a = 0; a < axis_count; ++a) {
    if (auto r = sum.find(std::string(axis_names[a]) + "_to_heldout")) s.to_heldout[a] = read_reach(*r);
    if (auto r = sum.find(std::string(axis_names[a]) + "_to_reward")) s.to_reward[a] = read_reach(*r);
  }
  if (auto v = sum.find("heldout_at_steps")) s.at_steps = read_stat(*v);
  if (auto v = sum.find("heldout_at_samples")) s.at_samples = read_stat(*v);
  if (auto v = sum.find("auc_steps")) s.auc_steps = read_stat(*v);
  if (auto v = sum.find("fallback_share")) s.fallback = read_stat(*v);
  const auto read_paired = [](const node& p) {
    return paired{p.at("mean").number_or_null(), p.at("low").number_or_null(),
                  p.at("high").number_or_null(), p.at("n").count()};
  };
  if (auto v = sum.find("paired_heldout_at_steps")) s.paired_steps = read_paired(*v);
  if (auto v = sum.find("paired_heldout_at_samples")) s.paired_samples = read_paired(*v);
  if (auto v = sum.find("reach_reference_fraction")) s.reach_ref = read_reach(*v);
  if (auto v = sum.find("reach_reference_seconds_ratio")) s.reach_ref_seconds = read_stat(*v);
  return s;
}

report_data read_report(const json& j) {
  const node root(j, "");
  report_data d;
  d.title = root.at("title").text();
  d.baseline = root.at("baseline").text();
  d.metric = root.at("heldout_metric").text();
  d.budget = root.at("budget_samples").number();
  if (auto s = j.find("smooth"); s != j.end() && s->is_number_unsigned() && s->get<size_t>() > 0)
    d.smooth = s->get<size_t>();
  if (auto e = root.find("equal_steps")) d.equal_steps = e->number_or_null();
  d.target_heldout = root.at("targets").at("heldout").number_or_null();
  d.target_reward = root.at("targets").at("real_reward").number_or_null();
  const node buckets = root.at("buckets");
  for (const auto& l : buckets.at("labels").items()) d.bucket_labels.push_back(l.text());
  for (const auto& p : buckets.at("prompts").items(d.bucket_labels.size()))
    d.bucket_prompts.push_back(p.count());
  const node bins = root.at("pass_rate_bins");
  d.bins = static_cast<size_t>(bins.count());
  if (d.bins == 0)
    throw std::invalid_argument("pass_rate_bins: expected a positive integer");
  for (const auto& s : root.at("strategies").items())
    d.strategies.push_back(read_strategy(s, d.bucket_labels.size(), d.bins));
  return d;
}

// ---- Text.

std::string accuracy_text(opt v) {
  return v ? fixed(*v, 3) : "-";
}
std::string count_text(opt v, const char* none = "-") {
  return v ? fixed(*v, 0) : none;
}
std::string ratio_text(opt v) {
  return v ? fixed(*v, 2) : "-";
}
std::string target_text(opt v) {
  return v ? fixed(*v, 3) : "(no target)";
}

/// Trailing mean of the y values over `window` points.
std::vector<point> smoothed(const std::vector<point>& p, size_t window) {
  std::vector<double> y;
  for (const auto& q : p) y.push_back(q.y);
  const auto m = moving_average(y, window);
  std::vector<point> out;
  for (size_t i = 0; i < p.size(); ++i) out.push_back({p[i].x, m[i]});
  return out;
}

// ---- Charts of the report (report/svg_chart.hpp draws them).

/// A chart with one thin polyline per run, in its strategy's color.
template <class Series>
chart runs_chart(const report_data& d, Series series) {
  chart c;
  for (size_t i = 0; i < d.strategies.size(); ++i) {
    const auto& st = d.strategies[i];
    c.legend.push_back(st.name);
    for (const auto& r : st.runs) {
      line l;
      l.color = i;
      l.label = st.name + " seed " + fixed(r.seed, 0);
      l.points = series(r);
      if (!l.points.empty()) c.lines.push_back(std::move(l));
    }
  }
  return c;
}

/// With an equal-steps table, curves against steps stop at its step cap (the runs go on
/// for the sample budget; the other axes show all of them).
std::vector<point> to_step_cap(const report_data& d, size_t axis, std::vector<point> p) {
  if (axis != 0 || !d.equal_steps) return p;
  std::erase_if(p, [&](const point& q) { return q.x > *d.equal_steps; });
  return p;
}

std::string step_cap_note(const report_data& d, size_t axis) {
  return axis == 0 && d.equal_steps ? " (to step " + fixed(*d.equal_steps, 0) + ")" : "";
}

chart accuracy_chart(const report_data& d, size_t axis) {
  chart c = runs_chart(
      d, [&d, axis](const run_data& r) { return to_step_cap(d, axis, r.accuracy[axis]); });
  c.title = "Held-out accuracy (" + d.metric + ") against " + axis_names[axis] +
            step_cap_note(d, axis);
  c.x_title = axis_titles[axis];
  c.y_title = "held-out accuracy";
  c.target = d.target_heldout;
  return c;
}

chart reward_chart(const report_data& d, size_t axis) {
  chart c = runs_chart(d, [&d, axis](const run_data& r) {
    return to_step_cap(d, axis, smoothed(r.reward[axis], d.smooth));
  });
  c.title = "Real reward (mean of " + std::to_string(d.smooth) + " steps) against " +
            axis_names[axis] + step_cap_note(d, axis);
  c.x_title = axis_titles[axis];
  c.y_title = "real reward";
  c.target = d.target_reward;
  return c;
}

chart zero_grad_chart(const report_data& d) {
  chart c = runs_chart(d, [](const run_data& r) { return r.zero_grad; });
  c.title = "Zero-gradient fraction per step";
  c.x_title = "step";
  c.y_title = "zero-gradient fraction";
  c.y_cover = {0};
  return c;
}

/// Samples per prompt by pass-rate bin, pooled over a strategy's runs (sum of samples
/// over sum of prompts); bins without prompts are left out.
chart samples_chart(const report_data& d) {
  chart c;
  c.title = "Samples per prompt against estimated pass rate";
  c.x_title = "estimated pass rate (bin centers)";
  c.y_title = "mean samples per prompt";
  c.x_cover = {0, 1};
  c.y_cover = {0};
  const double bins = static_cast<double>(d.bins);
  for (size_t i = 0; i < d.strategies.size(); ++i) {
    const auto& st = d.strategies[i];
    c.legend.push_back(st.name);
    line l;
    l.color = i;
    l.label = st.name;
    l.width = 2;
    for (size_t b = 0; b < d.bins; ++b) {
      double prompts = 0, samples = 0;
      for (const auto& r : st.runs) {
        prompts += r.bin_prompts[b];
        samples += r.bin_samples[b];
      }
      if (prompts == 0) continue;
      const double bd = static_cast<double>(b);
      l.points.push_back({(bd + 0.5) / bins, samples / prompts});
      l.notes.push_back(st.name + ": pass rate " + fixed(bd / bins, 2) + "-" +
                        fixed((bd + 1) / bins, 2) + ", " + fixed(samples / prompts, 2) +
                        " samples per prompt (" + fixed(prompts, 0) +
                        (prompts == 1 ? " prompt)" : " prompts)"));
    }
    if (!l.points.empty()) c.lines.push_back(std::move(l));
  }
  return c;
}

// ---- The page.

std::string span(const std::string& key, const std::string& text) {
  return "<span data-key=\"" + escape(key) + "\">" + text + "</span>";
}

std::string num_cell(const std::string& key, const std::string& text) {
  return "<td class=\"num\" data-key=\"" + escape(key) + "\">" + text + "</td>";
}

/// "median [min, max]" as spans, each with its data-key.
template <class Format>
std::string stat_spans(const std::string& key, const stat& s, Format format,
                       const char* none) {
  return span(key + ".median", s.median ? format(*s.median) : none) + " <small>[" +
         span(key + ".min", s.min ? format(*s.min) : "-") + ", " +
         span(key + ".max", s.max ? format(*s.max) : "-") + "]</small>";
}

std::string reach_cell(const std::string& key, const reach& r, int decimals = 0) {
  const auto count = [](double v) { return fixed(v, 0); };
  const auto value = [decimals](double v) { return fixed(v, decimals); };
  return "<td class=\"num\">" + stat_spans(key, r.s, value, "not reached") + " <small>" +
         span(key + ".reached", count(r.reached) + "/" + count(r.runs)) + "</small></td>";
}

std::string summary_table(const report_data& d) {
  std::string t =
      "<table id=\"summary\">\n<tr><th>strategy</th><th>samples to held-out " +
      target_text(d.target_heldout) +
      "<br><small>median [min, max] reached</small></th><th>vs baseline</th>"
      "<th>tokens to held-out " +
      target_text(d.target_heldout) + "</th><th>vs baseline</th><th>samples to reward " +
      target_text(d.target_reward) +
      "</th><th>vs baseline</th><th>final held-out accuracy</th></tr>\n";
  for (const auto& s : d.strategies) {
    const std::string& k = s.name;
    t += "<tr><td>" + escape(s.name) +
         (s.name == d.baseline ? " <small>(baseline)</small>" : "") + "</td>";
    t += reach_cell(k + ".samples_to_heldout", s.samples_heldout) +
         num_cell(k + ".ratio_heldout_samples", ratio_text(s.ratio_samples));
    t += reach_cell(k + ".tokens_to_heldout", s.tokens_heldout) +
         num_cell(k + ".ratio_heldout_tokens", ratio_text(s.ratio_tokens));
    t += reach_cell(k + ".samples_to_reward", s.samples_reward) +
         num_cell(k + ".ratio_reward_samples", ratio_text(s.ratio_reward));
    t += "<td class=\"num\">" +
         stat_spans(
             k + ".final_accuracy", s.final_accuracy,
             [](double v) { return fixed(v, 3); }, "-") +
         "</td></tr>\n";
  }
  return t + "</table>\n";
}

/// "+0.012 [-0.003, +0.027] (n 5)" with data-keys.
std::string paired_cell(const std::string& key, const std::optional<paired>& p) {
  if (!p || !p->mean) return num_cell(key + ".mean", "-");
  const auto signed3 = [](opt v) {
    if (!v) return std::string("-");
    const std::string t = fixed(*v, 3);
    return t[0] == '-' ? t : "+" + t;
  };
  return "<td class=\"num\">" + span(key + ".mean", signed3(p->mean)) + " <small>[" +
         span(key + ".low", signed3(p->low)) + ", " + span(key + ".high", signed3(p->high)) +
         "] n " + fixed(p->n, 0) + "</small></td>";
}

std::string stat_cell(const std::string& key, const std::optional<stat>& s, int decimals) {
  if (!s) return num_cell(key + ".median", "-");
  return "<td class=\"num\">" +
         stat_spans(key, *s, [decimals](double v) { return fixed(v, decimals); }, "-") + "</td>";
}

/// Held-out accuracy at equal steps and at equal samples, each with its paired
/// difference against the baseline (mean and 95% t-interval over seeds), the mean under
/// the held-out curve to the step cap and the share of samples on never-exited prompts.
std::string paired_table(const report_data& d) {
  const std::string steps = d.equal_steps ? fixed(*d.equal_steps, 0) : "-";
  std::string t = "<table id=\"paired\">\n<tr><th>strategy</th><th>held-out at " + steps +
                  " steps</th><th>minus " + escape(d.baseline) +
                  " (same seed)<br><small>mean [95% t-interval]</small></th><th>held-out at " +
                  fixed(d.budget, 0) + " samples</th><th>minus " + escape(d.baseline) +
                  "</th><th>mean held-out over steps 0-" + steps +
                  "</th><th>samples on never-exited prompts</th><th>steps to " +
                  escape(d.baseline) + "'s held-out at " + steps +
                  "<br><small>fraction of the steps</small></th><th>wall-clock there"
                  "<br><small>over " + escape(d.baseline) + "'s</small></th></tr>\n";
  for (const auto& s : d.strategies) {
    const std::string& k = s.name;
    t += "<tr><td>" + escape(s.name) + "</td>" + stat_cell(k + ".heldout_at_steps", s.at_steps, 3) +
         paired_cell(k + ".paired_heldout_at_steps", s.paired_steps) +
         stat_cell(k + ".heldout_at_samples", s.at_samples, 3) +
         paired_cell(k + ".paired_heldout_at_samples", s.paired_samples) +
         stat_cell(k + ".auc_steps", s.auc_steps, 3) + stat_cell(k + ".fallback_share", s.fallback, 3) +
         (s.reach_ref ? reach_cell(k + ".reach_reference_fraction", *s.reach_ref, 2)
                      : num_cell(k + ".reach_reference_fraction.median", "-")) +
         stat_cell(k + ".reach_reference_seconds_ratio", s.reach_ref_seconds, 2) + "</tr>\n";
  }
  return t + "</table>\n";
}

/// Steps, samples, tokens and seconds to each target (median [min, max] reached).
std::string targets_table(const report_data& d) {
  std::string t = "<table id=\"targets\">\n<tr><th>strategy</th>";
  for (const char* target : {"held-out ", "reward "})
    for (size_t a = 0; a < axis_count; ++a)
      t += std::string("<th>") + axis_names[a] + " to " + target +
           target_text(target[0] == 'h' ? d.target_heldout : d.target_reward) + "</th>";
  t += "</tr>\n";
  for (const auto& s : d.strategies) {
    t += "<tr><td>" + escape(s.name) + "</td>";
    for (int which = 0; which < 2; ++which)
      for (size_t a = 0; a < axis_count; ++a) {
        const auto& r = which == 0 ? s.to_heldout[a] : s.to_reward[a];
        const std::string key = s.name + ".targets." + axis_names[a] +
                                (which == 0 ? "_to_heldout" : "_to_reward");
        t += r ? reach_cell(key, *r) : num_cell(key + ".median", "-");
      }
    t += "</tr>\n";
  }
  return t + "</table>\n";
}

bool has_axes(const report_data& d) {
  for (const auto& s : d.strategies)
    if (s.to_heldout[0]) return true;
  return false;
}

bool has_paired(const report_data& d) {
  for (const auto& s : d.strategies)
    if (s.paired_steps || s.paired_samples || s.at_steps) return true;
  return false;
}

std::string bucket_table(const report_data& d) {
  std::string t = "<table id=\"buckets\">\n<tr><th>strategy</th>";
  for (size_t b = 0; b < d.bucket_labels.size(); ++b)
    t += "<th>" + escape(d.bucket_labels[b]) + "<br><small>" +
         fixed(d.bucket_prompts[b], 0) + " prompts</small></th>";
  t += "</tr>\n";
  for (const auto& s : d.strategies) {
    t += "<tr><td>" + escape(s.name) + "</td>";
    for (size_t b = 0; b < s.buckets.size(); ++b)
      t += num_cell(s.name + ".bucket_accuracy." + std::to_string(b),
                    accuracy_text(s.buckets[b] ? s.buckets[b]->median : std::nullopt));
    t += "</tr>\n";
  }
  return t + "</table>\n";
}

std::string runs_table(const report_data& d) {
  std::string t =
      "<table id=\"runs\">\n<tr><th>strategy</th><th>seed</th><th>directory</th>"
      "<th>samples to held-out</th><th>samples to reward</th><th>final "
      "accuracy</th></tr>\n";
  for (const auto& s : d.strategies)
    for (size_t i = 0; i < s.runs.size(); ++i) {
      const auto& r = s.runs[i];
      const std::string k = s.name + ".runs." + std::to_string(i);
      t += "<tr><td>" + escape(s.name) + "</td>" +
           num_cell(k + ".seed", fixed(r.seed, 0)) + "<td><code>" + escape(r.dir) +
           "</code></td>" +
           num_cell(k + ".samples_to_heldout",
                    count_text(r.samples_to_heldout, "not reached")) +
           num_cell(k + ".samples_to_reward",
                    count_text(r.samples_to_reward, "not reached")) +
           num_cell(k + ".final_accuracy", accuracy_text(r.final_accuracy)) + "</tr>\n";
    }
  return t + "</table>\n";
}

std::string explanation(const report_data& d) {
  std::string names;
  size_t runs = 0;
  for (const auto& s : d.strategies) {
    names += (names.empty() ? "" : ", ") + escape(s.name);
    runs += s.runs.size();
  }
  const size_t n = d.strategies.size();
  return "Compares " + std::to_string(n) + (n == 1 ? " strategy" : " strategies") + " (" +
         names + ") over " + std::to_string(runs) + (runs == 1 ? " run" : " runs") +
         ", each with a budget of " + fixed(d.budget, 0) +
         " samples. Target held-out accuracy (" + escape(d.metric) +
         "): " + (d.target_heldout ? fixed(*d.target_heldout, 3) : "none set") +
         "; target real reward: " +
         (d.target_reward ? fixed(*d.target_reward, 3) : "none set") +
         ". Samples (tokens) to target count the samples (tokens) a run had used when it "
         "first reached the target: median [min, max] over seeds, and how many seeds "
         "reached it. The baseline is " +
         escape(d.baseline) +
         "; a ratio is the baseline median over the strategy median, so 2.00 means half "
         "the samples of the baseline, and \"-\" means one of them never reached the "
         "target.";
}

std::string figure(const chart& c, const std::string& caption) {
  return "<figure>\n" + svg_chart(c) + "<figcaption>" + caption +
         "</figcaption>\n</figure>\n";
}

/// The curves against each x axis, one block per axis; radio buttons before them pick
/// the block shown (CSS only: the page has no scripts).
std::string curves(const report_data& d) {
  std::string h = "<div class=\"axes\">\nx axis:";
  // The equal-steps protocol reads its primary table at equal steps: steps first.
  const size_t first = d.equal_steps ? 0 : samples_axis;
  for (size_t a = 0; a < axis_count; ++a)
    h += std::string(" <input type=\"radio\" name=\"x-axis\" id=\"x-") + axis_names[a] +
         "\"" + (a == first ? " checked" : "") + "><label for=\"x-" + axis_names[a] + "\">" +
         axis_names[a] + "</label>";
  h += "\n";
  for (size_t a = 0; a < axis_count; ++a) {
    h += std::string("<div class=\"curves on-") + axis_names[a] + "\" data-axis=\"" +
         axis_names[a] + "\">\n";
    h += figure(accuracy_chart(d, a),
                std::string("Held-out accuracy against ") + axis_titles[a] +
                    ". One thin line per run; seeds of a strategy share its color. "
                    "Dashed: the target.");
    h += figure(reward_chart(d, a), "Real reward of the training batches, trailing mean over " +
                                        std::to_string(d.smooth) + " steps, against " +
                                        axis_titles[a] + ". Dashed: the target.");
    h += "</div>\n";
  }
  return h + "</div>\n";
}

constexpr const char* page_style =
    "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;"
    "color:#222;line-height:1.4}\n"
    "table{border-collapse:collapse;margin:1em 0}\n"
    "th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top}\n"
    "th{background:#f4f4f4;text-align:left}\n"
    "td.num{text-align:right;white-space:nowrap}\n"
    "small{color:#666}\n"
    "figure{margin:1.5em 0}\n"
    "svg{max-width:100%;height:auto}\n"
    ".curves{display:none}\n"
    "#x-steps:checked~.on-steps,#x-samples:checked~.on-samples,"
    "#x-tokens:checked~.on-tokens,#x-seconds:checked~.on-seconds{display:block}\n";

}  // namespace

std::string report_html(const nlohmann::json& compare) {
  const report_data d = read_report(compare);
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      escape(d.title) + "</title>\n<style>\n" + page_style +
      "</style>\n</head>\n<body>\n";
  h += "<h1>" + escape(d.title) + "</h1>\n<p>" + explanation(d) + "</p>\n";
  if (has_paired(d))
    h += "<h2>Equal steps and equal samples, paired by seed</h2>\n<p>Held-out accuracy of "
         "every run at the step cap and at the sample budget; the differences against " +
         escape(d.baseline) +
         " are taken seed by seed (same prompts, same sample streams), then averaged, "
         "with a 95% Student-t interval over the seeds.</p>\n" +
         paired_table(d);
  if (has_axes(d))
    h += "<h2>Steps, samples, tokens and seconds to the targets</h2>\n" + targets_table(d);
  h += "<h2>Summary</h2>\n" + summary_table(d);
  h += "<h2>Held-out accuracy by difficulty bucket</h2>\n<p>Median final accuracy over "
       "seeds, per bucket of held-out prompts.</p>\n" +
       bucket_table(d);
  h += "<h2>Curves</h2>\n" + curves(d);
  h +=
      figure(zero_grad_chart(d), "Fraction of the step's prompts that gave no gradient.");
  h +=
      figure(samples_chart(d),
             "Samples spent per prompt, by the prompt's estimated pass "
             "rate in " +
                 std::to_string(d.bins) +
                 " bins, pooled over the runs of a "
                 "strategy (total samples over total prompts); empty bins are left out.");
  h += "<h2>Runs</h2>\n" + runs_table(d);
  return h + "</body>\n</html>\n";
}

std::string accuracy_svg(const nlohmann::json& compare, const std::string& axis) {
  const report_data d = read_report(compare);
  size_t a = d.equal_steps ? 0 : samples_axis;
  if (!axis.empty()) {
    const auto it = std::find(std::begin(axis_names), std::end(axis_names), axis);
    if (it == std::end(axis_names))
      throw std::invalid_argument("axis: expected steps, samples, tokens or seconds, got \"" +
                                  axis + "\"");
    a = size_t(it - std::begin(axis_names));
  }
  return svg_chart(accuracy_chart(d, a));
}

}  // namespace adarl
