// The charts of the run page: learning curves and the cost of each step.
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/convergence.hpp"
#include "report/run_sections.hpp"
#include "report/svg_chart.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

/// Charts of the run page are drawn at this size (two side by side on a laptop).
constexpr double run_chart_width = 540, run_chart_height = 300;
/// Palette indices (report/svg_chart.cpp): blue, orange, red, teal, grey.
constexpr size_t blue = 0, orange = 1, red = 2, teal = 3, grey = 9;
/// Most points drawn of one series (trailing means are taken over every step first).
constexpr size_t max_points = 1000;

/// The x axes of the learning curves: the key of a step row, of an evaluation row.
struct x_axis {
  const char* name;
  const char* title;
  const char* step_key;
  const char* eval_key;
};
constexpr x_axis curve_axes[] = {
    {"steps", "training step (policy version)", "step", "version"},
    {"samples", "cumulative samples", "cumulative_samples", "cumulative_samples"},
    {"seconds", "wall-clock seconds", "elapsed", "elapsed"},
};

chart run_chart(std::string title, std::string x_title, std::string y_title) {
  chart c;
  c.title = std::move(title);
  c.x_title = std::move(x_title);
  c.y_title = std::move(y_title);
  c.width = run_chart_width;
  c.height = run_chart_height;
  c.legend_top = true;
  return c;
}

/// (x, y) of every row that has both as numbers.
std::vector<chart_point> series(const json& rows, const char* x, const char* y) {
  std::vector<chart_point> p;
  for (const auto& r : rows) {
    const auto vx = number_at(r, x), vy = number_at(r, y);
    if (vx && vy) p.push_back({*vx, *vy});
  }
  return p;
}

/// Every k-th point (and the last) of a long per-step series, so that a run of many
/// steps still draws a page of a few megabytes at most.
std::vector<chart_point> thinned(std::vector<chart_point> p) {
  if (p.size() <= max_points) return p;
  const size_t k = (p.size() + max_points - 1) / max_points;
  std::vector<chart_point> out;
  for (size_t i = 0; i < p.size(); i += k) out.push_back(p[i]);
  if ((p.size() - 1) % k != 0) out.push_back(p.back());
  return out;
}

chart_line make_line(size_t color, std::string label, std::vector<chart_point> p,
                     double width = 1.6) {
  chart_line l;
  l.color = color;
  l.label = std::move(label);
  l.points = thinned(std::move(p));
  l.width = width;
  return l;
}

/// Adds a line and its legend entry.
void add(chart& c, chart_line l) {
  c.legend.push_back(l.label);
  c.legend_colors.push_back(l.color);
  c.lines.push_back(std::move(l));
}

/// A light per-step line and its trailing mean over `window` steps.
void add_with_mean(chart& c, std::vector<chart_point> p, size_t window, size_t color) {
  std::vector<double> y;
  for (const auto& q : p) y.push_back(q.y);
  const auto m = moving_average(y, window);
  std::vector<chart_point> mean;
  for (size_t i = 0; i < p.size(); ++i) mean.push_back({p[i].x, m[i]});
  add(c, make_line(grey, "per step", std::move(p), 1));
  add(c, make_line(color, "mean of " + std::to_string(window) + " steps", std::move(mean),
                   2.2));
}

std::string figure(const chart& c, const std::string& caption) {
  return "<figure>\n" + svg_chart(c) + "<figcaption>" + caption +
         "</figcaption>\n</figure>\n";
}

chart accuracy_chart(const json& d, const x_axis& a) {
  const std::string metric = d.at("heldout_metric").is_string()
                                 ? d.at("heldout_metric").get<std::string>()
                                 : "none";
  chart c = run_chart("Held-out accuracy (" + metric + ")", a.title, "held-out accuracy");
  c.x_cover = {0};  // every x axis starts where the run did
  c.y_cover = {0};
  chart_line l = make_line(blue, "evaluations", {}, 2.2);
  for (const auto& e : d.at("evals")) {
    const auto x = number_at(e, a.eval_key);
    if (!x) continue;
    const double acc = e.at("accuracy").get<double>();
    l.points.push_back({*x, acc});
    l.notes.push_back("version " + fixed(e.at("version").get<double>(), 0) + ": " +
                      fixed(acc, 3));
  }
  add(c, std::move(l));
  if (const auto t = number_at(d.at("targets"), "heldout")) c.target = *t;
  return c;
}

chart reward_chart(const json& d, const x_axis& a) {
  chart c = run_chart("Real reward (training batches)", a.title, "real reward");
  c.x_cover = {0};
  c.y_cover = {0};
  add_with_mean(c, series(d.at("steps"), a.step_key, "real_reward"),
                d.at("smooth").get<size_t>(), orange);
  if (const auto t = number_at(d.at("targets"), "real_reward")) c.target = *t;
  return c;
}

}  // namespace

std::string run_curves_section(const json& d) {
  // The radio buttons are siblings of the blocks they pick (the CSS uses `~`).
  std::string h = "<h2>Learning</h2>\n<div class=\"axes\">\nx axis:";
  for (const auto& a : curve_axes)
    h += std::string(" <input type=\"radio\" name=\"x-axis\" id=\"x-") + a.name + "\"" +
         (&a == curve_axes ? " checked" : "") + "><label for=\"x-" + a.name + "\">" +
         a.name + "</label>";
  h += "\n";
  const std::string smooth = std::to_string(d.at("smooth").get<size_t>());
  for (const auto& a : curve_axes) {
    h += std::string("<div class=\"curves grid on-") + a.name + "\">\n";
    h += d.at("evals").empty()
             ? std::string(
                   "<figure><p class=\"empty\">No held-out evaluation finished "
                   "(eval.jsonl has none): no accuracy to draw.</p></figure>\n")
             : figure(accuracy_chart(d, a),
                      "Held-out accuracy at each evaluation (a dot each; "
                      "hover for its version). Dashed: the target.");
    h += figure(reward_chart(d, a),
                "Mean reward of each step's first round (grey) and its "
                "trailing mean over " +
                    smooth + " steps.");
    h += "</div>\n";
  }
  return h + "</div>\n";
}

std::string run_cost_section(const json& d) {
  const json& steps = d.at("steps");
  const char* x = "training step (policy version)";
  chart samples = run_chart("Samples per step", x, "samples");
  samples.y_cover = {0};
  add_with_mean(samples, series(steps, "step", "samples"), d.at("smooth").get<size_t>(),
                blue);
  chart seconds = run_chart("Seconds per step", x, "seconds");
  seconds.y_cover = {0};
  add(seconds,
      make_line(blue, "step (wall clock)", series(steps, "step", "time_step"), 2));
  add(seconds, make_line(orange, "generation", series(steps, "step", "time_generation")));
  add(seconds, make_line(teal, "training", series(steps, "step", "time_train")));
  chart zero = run_chart("Zero-gradient fraction", x, "share of trainable groups");
  zero.y_cover = {0, 1};
  add_with_mean(zero, series(steps, "step", "zero_gradient_fraction"),
                d.at("smooth").get<size_t>(), red);
  return "<h2 id=\"cost\">What each step cost</h2>\n<div class=\"grid\">\n" +
         figure(samples,
                "Samples drawn per step (whole pools: what the budget counts).") +
         figure(seconds,
                "Wall time of each step, and the seconds of its generation and of "
                "the learner's optimizer step.") +
         figure(zero,
                "Share of the step's trainable groups whose advantages were all equal: "
                "samples that taught nothing.") +
         "</div>\n";
}

std::string run_step_chart(const json& d, const std::string& title,
                           const std::string& y_title,
                           const std::vector<std::pair<std::string, std::string>>& lines,
                           bool fraction, const std::string& caption) {
  chart c = run_chart(title, "training step (policy version)", y_title);
  c.y_cover = fraction ? std::vector<double>{0, 1} : std::vector<double>{0};
  const size_t colors[] = {blue, orange, teal, red};
  const size_t window = d.at("smooth").get<size_t>();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<chart_point> p = series(d.at("steps"), "step", lines[i].first.c_str());
    std::vector<double> y;
    for (const auto& q : p) y.push_back(q.y);
    const auto m = moving_average(y, window);
    for (size_t k = 0; k < p.size(); ++k) p[k].y = m[k];
    add(c, make_line(colors[i % std::size(colors)], lines[i].second, std::move(p), 1.8));
  }
  return figure(c,
                caption + " Trailing means over " + std::to_string(window) + " steps.");
}

/// Samples per prompt against the estimated pass rate, over the whole run.
std::string run_pass_rate_chart(const json& d) {
  chart c = run_chart("Samples per prompt by estimated pass rate",
                      "estimated pass rate "
                      "(bin centers)",
                      "samples per prompt");
  c.legend_top = false;
  c.x_cover = {0, 1};
  c.y_cover = {0};
  const json& bins = d.at("pass_rate_bins");
  chart_line l = make_line(blue, "samples per prompt", {}, 2.2);
  const double n = double(bins.at("prompts").size());
  for (size_t b = 0; b < bins.at("prompts").size(); ++b) {
    const double prompts = bins.at("prompts").at(b).get<double>();
    if (prompts == 0) continue;
    const double per = bins.at("samples").at(b).get<double>() / prompts,
                 lo = double(b) / n;
    l.points.push_back({(double(b) + 0.5) / n, per});
    l.notes.push_back("pass rate " + fixed(lo, 2) + "-" + fixed(lo + 1 / n, 2) + ": " +
                      fixed(per, 2) + " samples per prompt (" + count_text(prompts) +
                      " prompts)");
  }
  c.lines.push_back(std::move(l));
  return figure(c,
                "Samples a prompt drew, by its estimated pass rate after the step "
                "(all steps pooled; empty bins left out).");
}

/// The pass-rate prior's reliability curve: the success rate of the samples against the
/// mean prediction, per tenth of predicted p, beside the diagonal of a calibrated prior.
std::string run_reliability_chart(const json& d) {
  chart c = run_chart("Reliability of the pass-rate prior", "predicted pass rate",
                      "observed pass rate");
  c.x_cover = {0, 1};
  c.y_cover = {0, 1};
  chart_line l = make_line(blue, "observed", {}, 2.2);
  for (const auto& b : d.at("reliability")) {
    const double p = b.at("predicted").get<double>(), o = b.at("observed").get<double>();
    l.points.push_back({p, o});
    l.notes.push_back("predicted " + fixed(p, 3) + ": observed " + fixed(o, 3) + " over " +
                      count_text(b.at("samples").get<double>()) + " samples");
  }
  add(c, make_line(grey, "calibrated", {{0, 0}, {1, 1}}, 1));
  add(c, std::move(l));
  return figure(c,
                "Each tenth of the predictions (the prior a prompt was drawn with at the "
                "start of its step), at its mean prediction and the share of right "
                "samples (all steps pooled; empty tenths left out). A Seq pool stops "
                "when its exit rule holds, so its observed rate leans toward the rule.");
}

}  // namespace adarl
