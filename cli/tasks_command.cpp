// `adarl tasks`: export a built-in suite as a JSONL dataset, check a dataset file
// (`adarl tasks select` is in cli/task_select_run.cpp: it runs the policy).
#include <CLI/CLI.hpp>
#include <charconv>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "tasks/dataset.hpp"
#include "tasks/suites.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {
namespace {

/// What `adarl tasks export` was given, as typed (validated by run_export).
struct export_options {
  std::string suite, count = "100", seed = "1", out, split = "train", mix;
};

/// Parses a whole unsigned integer; false on anything else.
template <class T>
bool parse_unsigned(const std::string& s, T& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

/// Parses "--mix 1,1,0.5": 1 to 5 non-negative weights, not all zero; "" when fine.
std::string parse_mix(const std::string& text, std::vector<double>& mix) {
  const std::string bad =
      "--mix: expected 1 to 5 comma-separated non-negative weights "
      "for levels 1..5, not all zero, got \"" +
      text + "\"";
  mix.clear();
  std::stringstream in(text);
  double total = 0;
  for (std::string part; std::getline(in, part, ',');) {
    std::size_t used = 0;
    double w = -1;
    try {
      w = std::stod(part, &used);
    } catch (const std::exception&) {
      return bad;
    }
    if (used != part.size() || !(w >= 0) || w > 1e300) return bad;
    mix.push_back(w);
    total += w;
  }
  if (mix.empty() || mix.size() > 5 || !(total > 0) || text.back() == ',') return bad;
  return "";
}

/// Validates the options into a request; "" when fine, else the message.
std::string to_request(const export_options& o, suite_request& req) {
  if (o.suite.empty()) return "--suite is required (math, code, general or mixed)";
  if (!parse_unsigned(o.count, req.count) || req.count == 0)
    return "--count: expected a positive integer below 2^32, got \"" + o.count + "\"";
  if (!parse_unsigned(o.seed, req.seed))
    return "--seed: expected a non-negative integer below 2^64, got \"" + o.seed + "\"";
  if (o.split == "train") {
    req.part = split::train;
  } else if (o.split == "held-out") {
    req.part = split::held_out;
  } else {
    return "--split: expected train or held-out, got \"" + o.split + "\"";
  }
  if (!o.mix.empty()) return parse_mix(o.mix, req.difficulty_mix);
  return "";
}

int run_export(const export_options& o, std::ostream& out, std::ostream& err) {
  suite_request req;
  if (auto problem = to_request(o, req); !problem.empty()) {
    err << "adarl tasks export: " << problem << "\n";
    return 2;
  }
  auto items = generate_suite(o.suite, req);
  if (!items) {
    err << "adarl tasks export: --suite: " << items.err().message << "\n";
    return 2;
  }
  if (items->size() < req.count)
    err << "adarl tasks export: warning: suite \"" << o.suite << "\" has only "
        << items->size() << " distinct " << o.split
        << " items at these levels; writing those\n";
  if (o.out.empty() || o.out == "-") {
    for (const auto& item : *items) out << to_jsonl(item) << '\n';
    out << std::flush;
    return out ? 0 : 1;
  }
  if (auto written = write_dataset(o.out, *items); !written) {
    err << "adarl tasks export: " << written.err().message << "\n";
    return 1;
  }
  out << "wrote " << items->size() << " " << o.suite << " items (" << o.split << ", seed "
      << req.seed << ") to " << o.out << "\n";
  return 0;
}

/// "a 3, b 1": counts in name order.
std::string counts(const std::map<std::string, std::size_t>& by_name) {
  std::string s;
  for (const auto& [name, n] : by_name)
    s += (s.empty() ? "" : ", ") + (name.empty() ? "(none)" : name) + " " +
         std::to_string(n);
  return s;
}

int run_check(const std::string& input, std::ostream& out, std::ostream& err) {
  const auto registry = verifier_registry::with_builtins();
  const auto items = load_dataset(input, &registry);
  if (!items) {
    err << items.err().message << "\n";
    return 2;
  }
  std::map<std::string, std::size_t> tasks, verifiers;
  for (const auto& item : *items) {
    ++tasks[item.task];
    ++verifiers[item.verifier];
  }
  out << input << ": " << items->size() << " items; tasks: " << counts(tasks)
      << "; verifiers: " << counts(verifiers) << "\n";
  return 0;
}

}  // namespace

CLI::App* add_tasks_command(CLI::App& app, int& exit_code) {
  auto* tasks = app.add_subcommand(
      "tasks",
      "Task datasets: export a built-in suite as JSONL, check a dataset file, select prompts");

  auto o = std::make_shared<export_options>();
  auto* ex = tasks->add_subcommand(
      "export", "Write items of a built-in suite as JSONL (see README.md, Tasks)");
  ex->add_option("--suite", o->suite, "math, code, general or mixed");
  ex->add_option("--count", o->count, "number of items (default 100)");
  ex->add_option("--seed", o->seed, "generator seed (default 1)");
  ex->add_option("--out", o->out, "output file, written atomically (default: stdout)");
  ex->add_option("--split", o->split, "train (default) or held-out");
  ex->add_option("--mix", o->mix, "weights of difficulty levels 1..5, e.g. 1,1,1,0,0");
  ex->callback([o, &exit_code] { exit_code = run_export(*o, std::cout, std::cerr); });

  auto input = std::make_shared<std::string>();
  auto* check = tasks->add_subcommand(
      "check", "Load a JSONL dataset: report every problem, or count items per task");
  check->add_option("--input", *input, "JSONL dataset file");
  check->callback([input, &exit_code] {
    if (input->empty()) {
      std::cerr << "adarl tasks check: --input is required\n";
      exit_code = 2;
      return;
    }
    exit_code = run_check(*input, std::cout, std::cerr);
  });

  tasks->callback([tasks, &exit_code] {
    if (tasks->get_subcommands().empty()) {
      std::cerr << "adarl tasks: expected a subcommand: export, check or select (see --help)\n";
      exit_code = 2;
    }
  });
  return tasks;
}

}  // namespace adarl
