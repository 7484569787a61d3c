// The run page's config section and style sheet.
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_sections.hpp"
#include "report/svg_chart.hpp"

namespace adarl {

namespace {

using json = nlohmann::json;

/// The keys of the summary, by section; "*" takes every key of the section.
struct config_group {
  const char* label;
  const char* prefix;
  std::vector<const char*> keys;
};

const std::vector<config_group>& config_groups() {
  static const std::vector<config_group> groups = {
      {"Strategy", "strategy.", {"*"}},
      {"Model",
       "model.",
       {"kind", "path", "d_model", "n_layers", "n_heads", "d_ff", "max_len", "device",
        "base_checkpoint"}},
      {"Tasks", "tasks.", {"suite", "dataset", "train", "held_out", "difficulty_mix"}},
      {"Tracker", "tracker.", {"prompts_per_step", "steps", "sample_budget", "max_lag"}},
      {"Learner",
       "learner.",
       {"lr", "warmup_steps", "grad_clip", "clip_low", "clip_high", "micro_batch",
        "replicas"}},
      {"Sampling", "sampling.", {"temperature", "top_p", "max_new_tokens"}},
      {"Evaluation", "eval.", {"every", "every_samples", "greedy", "samples"}},
      {"Warm start", "sft.", {"steps", "batch_size", "lr", "count"}},
  };
  return groups;
}

std::string value_text(const std::string& v) {
  return v.empty() ? "<i>none</i>" : "<b>" + escape(v) + "</b>";
}

/// "group_size <b>4</b> &middot; round_size <b>8</b> ..." for one section.
std::string group_text(const json& config, const config_group& g) {
  std::string out;
  const auto add = [&](const std::string& key, const std::string& value) {
    out += (out.empty() ? "" : " &middot; ") + std::string("<span class=\"kv\">") +
           escape(key) + " " + value_text(value) + "</span>";
  };
  if (g.keys.size() == 1 && std::string(g.keys[0]) == "*") {
    for (const auto& [key, value] : config.items())
      if (key.rfind(g.prefix, 0) == 0)
        add(key.substr(std::string(g.prefix).size()), value);
    return out;
  }
  for (const char* k : g.keys)
    if (const auto it = config.find(g.prefix + std::string(k)); it != config.end())
      add(k, it->get<std::string>());
  return out;
}

}  // namespace

std::string run_config_section(const json& d) {
  const json& config = d.at("config");
  std::string h = "<h2 id=\"config\">Config</h2>\n";
  if (config.empty()) return h + "<p>The run's directory has no config.json.</p>\n";
  h += "<table class=\"config\">\n";
  for (const auto& g : config_groups()) {
    const std::string text = group_text(config, g);
    if (!text.empty())
      h += std::string("<tr><th>") + g.label + "</th><td>" + text + "</td></tr>\n";
  }
  h += "</table>\n<details><summary>every key (" + std::to_string(config.size()) +
       ", config.json)</summary>\n<table class=\"small all-keys\">\n";
  for (const auto& [key, value] : config.items())
    h += "<tr><td><code>" + escape(key) + "</code></td><td><code>" +
         escape(value.get<std::string>()) + "</code></td></tr>\n";
  return h + "</table>\n</details>\n";
}

namespace {

/// Laid out for 1280 px and up (two charts a row), stacking below; nothing is wider
/// than its column (long values wrap), so the page never scrolls sideways.
constexpr const char* page_style =
    "*{box-sizing:border-box}\n"
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1140px;"
    "margin:0 auto;padding:1.2em 1em 3em;color:#222;line-height:1.45}\n"
    "h1{font-size:1.6em;margin:.2em 0}\n"
    "h2{font-size:1.25em;margin:1.6em 0 .5em;border-bottom:1px solid "
    "#ddd;padding-bottom:.2em}\n"
    "code{overflow-wrap:anywhere;font-size:.92em}\n"
    ".who{color:#444;margin:.2em 0 1em}\n"
    ".verdict{font-size:1.15em;font-weight:600;padding:.7em 1em;border-left:6px solid "
    "#999;"
    "background:#f4f4f4;border-radius:4px}\n"
    ".verdict.rose{border-color:#59a14f;background:#eef6ec}\n"
    ".verdict.flat{border-color:#edc948;background:#fbf7e6}\n"
    ".verdict.fell{border-color:#e15759;background:#fbeeee}\n"
    ".facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,200px),"
    "1fr));"
    "gap:.6em;margin:1em 0}\n"
    ".fact{border:1px solid #ddd;border-radius:6px;padding:.45em .75em;min-width:0}\n"
    ".fact span{display:block;color:#555;font-size:.85em}\n"
    ".fact b{display:block;font-size:1.3em;font-weight:600}\n"
    ".fact small{color:#666}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr)"
    ");"
    "gap:0 1.2em}\n"
    "figure{margin:.6em 0;min-width:0}\n"
    "figcaption{font-size:.88em;color:#555}\n"
    ".empty{color:#666;border:1px dashed #ccc;border-radius:4px;padding:2em 1em;"
    "text-align:center}\n"
    "svg{display:block;width:100%;height:auto}\n"
    ".curves{display:none}\n"
    "#x-steps:checked~.on-steps,#x-samples:checked~.on-samples,"
    "#x-seconds:checked~.on-seconds{display:grid}\n"
    ".axes input{margin-left:.8em}\n"
    "table{border-collapse:collapse;margin:.6em 0}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top;text-align:left}\n"
    "th{background:#f6f6f6;font-weight:600}\n"
    "td.num{text-align:right;white-space:nowrap}\n"
    "table.small{font-size:.92em}\n"
    ".tables{display:flex;flex-wrap:wrap;gap:0 2em;align-items:flex-start}\n"
    "td.bar{white-space:nowrap}\n"
    "td.bar span{display:inline-block;height:.8em;background:#4e79a7;margin-right:.5em}\n"
    "table.config{width:100%}\n"
    "table.config th{width:8em}\n"
    ".kv{display:inline-block;max-width:100%;overflow-wrap:anywhere}\n"
    "table.all-keys{width:100%}\n"
    "details summary{cursor:pointer;margin:.4em 0}\n"
    "small{color:#666}\n"
    ".foot{margin-top:2.5em;color:#666;font-size:.88em}\n";

}  // namespace

std::string run_page_style() {
  return page_style;
}

}  // namespace adarl
