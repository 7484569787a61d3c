#pragma once
// The sections of the run page (report/run_page.hpp) and the text helpers they share.
// Internal to report/: each takes run_report_data's data and returns HTML. Pure.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace adarl {

/// A count with thousands separators: "38,112"; rounds to an integer.
std::string count_text(double v);

/// A share as a percentage with one decimal: "12.5%".
std::string percent_text(double share);

/// Seconds as "42.1 s", "1m26s" or "2h05m".
std::string seconds_text(double seconds);

/// The number under `key` of `j`, or nullopt when absent, null or not a number.
std::optional<double> number_at(const nlohmann::json& j, const char* key);

/// Held-out accuracy and real reward against steps, samples and seconds, one block per
/// axis, picked by radio buttons (CSS only).
std::string run_curves_section(const nlohmann::json& data);

/// Samples and seconds per step, zero-gradient fraction per step (`id="cost"`).
std::string run_cost_section(const nlohmann::json& data);

/// A figure of per-step lines against the step, each a trailing mean over the data's
/// `smooth` steps: `lines` are (step row key, legend label); a `fraction` chart's y axis
/// covers [0, 1], another's starts at 0.
std::string run_step_chart(const nlohmann::json& data, const std::string& title,
                           const std::string& y_title,
                           const std::vector<std::pair<std::string, std::string>>& lines,
                           bool fraction, const std::string& caption);

/// A figure of samples per prompt against the estimated pass rate (all steps pooled).
std::string run_pass_rate_chart(const nlohmann::json& data);
/// The pass-rate prior's reliability curve (data's `reliability`), over the diagonal.
std::string run_reliability_chart(const nlohmann::json& data);

/// What the strategy's decisions cost (`id="decisions"`), by strategy kind.
std::string run_decisions_section(const nlohmann::json& data);

/// The reasons for zero rewards with counts and shares (`id="zero-rewards"`).
std::string run_zero_rewards_section(const nlohmann::json& data);

/// The config: a summary by section and every key under a disclosure (`id="config"`).
std::string run_config_section(const nlohmann::json& data);

/// The page's style sheet.
std::string run_page_style();

}  // namespace adarl
