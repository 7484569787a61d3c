#include "experiments/run_start.hpp"

#include <filesystem>
#include <map>
#include <ostream>

#include <spdlog/logger.h>

#include "base/run_config_file.hpp"
#include "config/pipeline_reader.hpp"
#include "config/resume_check.hpp"
#include "experiments/run_dir.hpp"
#include "experiments/run_engines.hpp"
#include "experiments/run_tasks.hpp"
#include "experiments/shell_words.hpp"
#include "runtime/listen_check.hpp"
#include "runtime/metrics_http.hpp"
#include "tasks/python_runner.hpp"

namespace adarl {

namespace {

/// Says once how programs of the python verifier are isolated here, when the run uses it
/// (the sandbox degrades where the kernel refuses namespaces, e.g. in a chroot).
void describe_sandbox(const prompt_table& prompts, std::ostream& err) {
  for (const auto& row : prompts.rows)
    if (row.item.verifier == "python") {
      const python_runner runner;
      if (!runner.available()) {
        err << "python sandbox: no interpreter; python items score 0 (python_unavailable)\n";
        return;
      }
      const auto iso = runner.probe_isolation();
      err << "python sandbox: " << iso.describe() << "\n";
      if (!iso.private_root)
        err << "warning: programs of the python verifier can read this machine's "
               "files (the kernel refused a private mount namespace)\n";
      return;
    }
}

/// The state differences between the config a run (or checkpoint) was written under
/// and the current one, printed; the refusal when they forbid going on (no
/// --resume-force).
run_ended same_state(const run_io& j, const pipeline_config& c, const std::string& what,
                     const std::map<std::string, std::string>& saved) {
  const auto diff = state_differences(saved, c.effective);
  if (diff.empty()) return std::nullopt;
  const std::string line =
      "--resume: " + what + " was written under another configuration of what its state means:";
  j.err << line << "\n";
  for (const auto& d : diff) j.err << "  " << d << "\n";
  if (!j.req.resume_force) {
    j.err << "run the same configuration, or add --resume-force to continue anyway\n";
    return run_job_result{run_status::refused, "", 0, "", "", line};
  }
  j.err << "--resume-force: continuing anyway\n";
  return std::nullopt;
}

/// The checkpoint to resume from (o.resume_from), checked against the current config;
/// refused, with a message on `err`, when it may not be used. A run directory killed
/// before its first checkpoint (metrics but no checkpoint) starts over in the same
/// directory (o.resume_from "").
run_ended checked_resume(const run_io& j, const pipeline_config& c, run_options& o) {
  const run_request& a = j.req;
  std::string note;
  auto ckpt = resolve_checkpoint(a.resume, &note);
  if (!ckpt) {
    namespace fs = std::filesystem;
    const bool any = fs::exists(a.resume + "/checkpoints/latest") ||
                     fs::exists(a.resume + "/checkpoint.json");
    if (!any && fs::exists(a.resume + "/metrics.jsonl")) {
      auto saved = read_run_config(a.resume + "/config.json");
      if (saved)
        if (auto refused = same_state(j, c, a.resume, *saved)) return refused;
      j.err << "--resume: " << a.resume
            << " holds no checkpoint yet (stopped before its first): starting it again "
               "from the beginning\n";
      return std::nullopt;
    }
    return said(j, run_status::refused, "", "--resume: " + ckpt.err().message);
  }
  if (!note.empty()) j.err << "--resume: " << note << "\n";
  auto saved = read_run_config(*ckpt + "/config.json");
  if (!saved && !a.resume_force)
    return said(j, run_status::refused, "",
                "--resume: " + saved.err().message +
                    "; --resume-force continues without checking the config");
  if (saved)
    if (auto refused = same_state(j, c, *ckpt, *saved)) return refused;
  o.resume_from = *ckpt;
  return std::nullopt;
}

}  // namespace

run_job_result said(const run_io& j, run_status s, const std::string& out,
                    const std::string& line) {
  j.err << line << "\n";
  return {s, out, 0, "", "", line};
}

bool holds_a_run(const std::string& out) {
  std::error_code ec;
  return std::filesystem::file_size(out + "/metrics.jsonl", ec) > 0 && !ec;
}

std::string again_line(const run_request& a, const pipeline_config& c, bool resume) {
  std::vector<std::string> again{"adarl", "run", a.file};
  again.insert(again.end(), a.overrides.begin(), a.overrides.end());
  if (resume) again.insert(again.end(), {"--resume", c.out});
  if (resume && a.resume_force) again.push_back("--resume-force");
  return shell_line(again);
}

run_ended check_run(const run_io& j, pipeline_config& c, prompt_table_ptr& prompts) {
  auto config = load_pipeline_config(j.req.file, j.req.overrides);
  if (!config) return said(j, run_status::refused, "", config.err().message);
  c = std::move(*config);
  const auto refuse = [&j](const error& e) {
    return said(j, run_status::refused, "", j.req.file + ": " + e.message);
  };
  if (auto ok = check_device(c); !ok) return refuse(ok.err());
  j.out << describe(c) << "\n";
  auto loaded = load_run_prompts(c);
  if (!loaded) return refuse(loaded.err());
  prompts = *loaded;
  j.out << "run: " << prompts->train << " training prompts, " << prompts->held_out()
        << " held out ("
        << (c.tasks.dataset.empty() ? "suite " + c.tasks.suite : c.tasks.dataset) << ")\n";
  if (auto ok = check_sft_items(c); !ok) return refuse(ok.err());
  if (auto ok = check_listen_endpoints(c); !ok) return refuse(ok.err());
  if (auto ok = check_server(c); !ok) return refuse(ok.err());
  describe_sandbox(*prompts, j.err);
  return std::nullopt;
}

run_ended choose_out_dir(const run_io& j, pipeline_config& c, run_options& o) {
  const run_request& a = j.req;
  if (!a.resume.empty()) {
    if (auto refused = checked_resume(j, c, o)) return refused;
    if (o.resume_from.empty()) {
      c.out = a.resume;  // no checkpoint yet: the same directory, from the beginning
    } else {
      // The run continues in the directory its checkpoint belongs to (OUT/checkpoints/..).
      const auto parent = std::filesystem::path(o.resume_from).parent_path();
      if (parent.filename() == "checkpoints") c.out = parent.parent_path().string();
      j.out << "run: resuming from " << o.resume_from << " into " << c.out << "\n";
    }
  } else if (c.out.find(run_dir_placeholder) != std::string::npos) {
    auto dir = make_run_dir(c.out);
    if (!dir) return said(j, run_status::failed, "", a.file + ": out: " + dir.err().message);
    c.out = *dir;
    j.out << "run: writing to " << c.out << "\n";
  } else if (holds_a_run(c.out)) {
    return said(j, run_status::refused, "",
                c.out + " already holds a run (metrics.jsonl): continue it with --resume " +
                    c.out + ", or write this one elsewhere with out=DIR");
  }
  return std::nullopt;
}

run_ended start_watchers(const run_io& j, const pipeline_config& c, run_watchers& w) {
  if (!c.metrics.listen.empty()) {
    run_figures start;
    start.run = c.name;
    start.steps_planned = c.tracker.steps;
    auto e = metrics_endpoint::start(c.metrics.listen, std::move(start));
    if (!e)
      return said(j, run_status::refused, c.out,
                  j.req.file + ": metrics.listen: " + e.err().message);
    w.endpoint = *e;
    j.out << "run: metrics at " << w.endpoint->url() << "\n";
  }
  auto log = open_run_log(c.log, c.out);  // after the endpoint: a busy one leaves no file
  if (!log) return said(j, run_status::refused, c.out, j.req.file + ": " + log.err().message);
  w.log = *log;
  const auto file = log_file_path(c.log, c.out);
  j.out << "run: report at " << c.out << "/report.html when it ends"
        << (file.empty() ? std::string() : "; log in " + file) << std::endl;  // scripts wait on it
  std::string what = describe(c);  // one line in the log
  for (size_t at; (at = what.find("\n  ")) != std::string::npos;) what.replace(at, 3, "; ");
  w.log->info("run {} started: {}", c.name, what);
  return std::nullopt;
}

}  // namespace adarl
