#pragma once
// The report page of one run: whether and how it learned (a verdict, held-out accuracy
// and reward curves), what each step cost, what the strategy's decisions cost, why
// rewards were zero, and the run's config. report.html of `adarl run` and `adarl report
// RUN_DIR`; a comparison has its own page (report/report.hpp).

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace adarl {

/// The page for run_report_data's data (report/run_report.hpp): self-contained HTML
/// (inline SVG and CSS, no scripts, nothing from the network), laid out to fit a
/// laptop screen (1280 px and up: no horizontal scrolling; narrower screens stack the
/// charts). Pure and deterministic; O(steps + evaluations + config keys).
///
/// Contents, top to bottom: the title; the run's name, strategy (`data-key="strategy"`),
/// seed (`data-key="seed"`) and directory; the verdict (run_verdict, `id="verdict"`);
/// key figures (`id="facts"`: steps, samples, tokens, wall clock, samples and seconds per
/// step, real reward and zero-gradient fraction over the first and last tenth of the
/// steps, the best held-out accuracy, the targets when set); held-out accuracy and real
/// reward (per step and a trailing mean) against training steps, cumulative samples or
/// wall-clock seconds (radio buttons, CSS only; steps first); samples and seconds per
/// step and the zero-gradient fraction against steps (`id="cost"`); what the strategy's
/// decisions cost (`id="decisions"`: for Seq the rounds used, the share of samples on
/// prompts that never exited or exited in round 1, the exits; for Est the spread of
/// samples per prompt and samples by estimated pass rate; for DAPO the dropped prompts;
/// for GRPO and Dr.GRPO the share of samples on groups without gradient; the pass-rate
/// prior's Brier score where the lines have it); the reasons for zero rewards with
/// counts and shares (`id="zero-rewards"`); the evaluations (`id="evals"`); the config
/// (`id="config"`: a summary by section, every key under a disclosure).
///
/// Text from the data is HTML-escaped. Throws nlohmann::json's exceptions (derived from
/// std::exception, naming the key) when a key the page needs is missing or of the
/// wrong type.
std::string run_page_html(const nlohmann::json& data);

/// One sentence on whether the run learned, from its held-out evaluations: "Held-out
/// accuracy (greedy) rose from 0.250 at version 0 to 0.410 at version 150 (+0.160; 95%
/// interval over 128 prompts +0.094 to +0.226)." It rose when the interval (paired over
/// the held-out prompts) lies above 0, or, without per-prompt values, when the last
/// evaluation is higher than the first; otherwise the sentence says it did not rise
/// (fell, stayed, or changed within the interval). With fewer than two evaluations it
/// says so, and how real reward went over the first and last tenth of the steps.
std::string run_verdict(const nlohmann::json& data);

}  // namespace adarl
