// `adarl tasks`: export a built-in suite as a JSONL dataset, check a dataset file, score
// completions (`adarl tasks select` is in cli/tasks_select_command.cpp: it runs the policy).
#include <tbb/parallel_for.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/jsonl_text.hpp"
#include "cli/commands.hpp"
#include "tasks/dataset.hpp"
#include "tasks/reference_check.hpp"
#include "tasks/suites.hpp"
#include "tasks/verifier_registry.hpp"
#include "tasks/verify_requests.hpp"

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
  if (o.suite.empty()) return "--suite is required (math, code, general, reasoning or mixed)";
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

/// Said once after the problems of a dataset file.
constexpr const char* kDatasetSchema =
    "expected one JSON object per line: {\"id\": string, \"prompt\": string, \"answer\": "
    "string, \"task\": string, \"verifier\": string, \"tests\"?: string|object|array, "
    "\"difficulty\"?: 1..5} (docs/guides/datasets.md)";

/// `--field TASK_FIELD=COLUMN` (repeated), `--verifier`, `--prompt-template`,
/// `--verifier-for SOURCE=VERIFIER` (repeated): a dataset as published
/// (tasks/dataset.hpp, dataset_format), as tasks.fields etc. in a config.
struct format_options {
  std::vector<std::string> fields, source_verifiers;
  std::string verifier, prompt_template;

  void add_to(CLI::App& command) {
    command.add_option("--field", fields,
                       "TASK_FIELD=COLUMN: read a task field from another column, e.g. "
                       "prompt=problem (repeat for each; as tasks.fields)");
    command.add_option("--verifier", verifier,
                       "verifier of lines without a verifier column (as tasks.verifier)");
    command.add_option("--prompt-template", prompt_template,
                       "the prompt as text around {prompt} (as tasks.prompt_template)");
    command.add_option("--verifier-for", source_verifiers,
                       "SOURCE=VERIFIER: the verifier of lines whose data_source is SOURCE, "
                       "e.g. openai/gsm8k=math (repeat for each; as tasks.verifiers)");
  }

  /// True when any of the options is given.
  bool given() const {
    return !fields.empty() || !verifier.empty() || !prompt_template.empty() ||
           !source_verifiers.empty();
  }

  /// The format, or the problem with the options.
  result<dataset_format> format() const {
    dataset_format f{{}, verifier, prompt_template, {}};
    for (const auto& pair : source_verifiers) {
      const auto eq = pair.rfind('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        return error{"--verifier-for: expected SOURCE=VERIFIER, got \"" + pair + "\""};
      const std::string source = pair.substr(0, eq);
      if (f.source_verifiers.count(source))
        return error{"--verifier-for: " + source + " is given twice"};
      f.source_verifiers[source] = pair.substr(eq + 1);
    }
    for (const auto& field : fields) {
      const auto eq = field.find('=');
      if (eq == std::string::npos || eq == 0)
        return error{"--field: expected TASK_FIELD=COLUMN, got \"" + field + "\""};
      const std::string name = field.substr(0, eq);
      if (f.columns.count(name)) return error{"--field: " + name + " is given twice"};
      f.columns[name] = field.substr(eq + 1);
    }
    if (auto bad = check_dataset_format(f, "--field"); !bad.empty()) {
      if (bad.rfind("prompt_template", 0) == 0) bad = "--prompt-" + bad.substr(7);
      return error{bad};
    }
    return f;
  }
};

/// `'text'` cut to about 60 characters, on one line, for the mapping report.
std::string excerpt(const std::string& text) {
  std::string s = text.size() > 60 ? text.substr(0, 57) + "..." : text;
  for (char& ch : s)
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  return json_quoted(s);
}

/// What a non-plain format made of the file: where each field came from, how the answers
/// were found, and the first item as a run will see it.
void report_mapping(const std::string& input, const dataset_format& f,
                    const dataset_mapping_counts& n, const std::vector<task_item>& items,
                    std::ostream& out) {
  out << input << ": mapped:";
  for (const auto& name : dataset_field_names())
    if (const auto it = f.columns.find(name); it != f.columns.end())
      out << " " << name << " <- column \"" << it->second << "\";";
  if (!f.prompt_template.empty()) out << " prompt through the template;";
  out << " answers: " << n.answers_boxed << " from \\boxed{}, " << n.answers_hashes
      << " after ####, " << n.answers_whole << " as written";
  if (n.ids_from_lines) out << "; " << n.ids_from_lines << " ids from line numbers";
  if (n.default_verifier)
    out << "; " << n.default_verifier << " items take verifier \"" << f.verifier << "\"";
  if (n.source_verifier) out << "; " << n.source_verifier << " verifiers from data_source";
  if (n.check_tests) out << "; " << n.check_tests << " tests as check(entry_point)";
  if (n.setup_tests) out << "; " << n.setup_tests << " assert lists after their test_setup_code";
  if (n.number_ids) out << "; " << n.number_ids << " integer ids as text";
  if (n.chat_prompts)
    out << "; " << n.chat_prompts << " prompts from chat messages (" << n.system_turns
        << " with a system turn of their own)";
  out << "\n";
  if (items.empty()) return;
  const auto& first = items.front();
  out << input << ": first item: id " << excerpt(first.id) << ", prompt "
      << excerpt(first.prompt);
  if (!first.system.empty()) out << ", system " << excerpt(first.system);
  out << ", answer " << excerpt(first.answer) << ", verifier " << excerpt(first.verifier)
      << "\n";
}

int run_check(const std::string& input, const dataset_format& format, std::ostream& out,
              std::ostream& err) {
  const auto registry = verifier_registry::with_builtins();
  std::vector<uint32_t> lines;
  dataset_mapping_counts mapping;
  const auto items = load_dataset(input, &registry, &lines, format, &mapping);
  if (!items) {
    err << items.err().message << "\n";
    if (format.plain()) err << kDatasetSchema << "\n";
    return 2;
  }
  if (!format.plain()) report_mapping(input, format, mapping, *items, out);
  // A reference its verifier cannot use would score 0 on every completion (issue 22).
  if (const auto unusable = find_unusable_references(*items, registry); !unusable.empty()) {
    err << describe_unusable(unusable, *items, input, lines) << "\n"
        << input << ": " << unusable.size() << " of " << items->size()
        << " items have a reference their verifier cannot use (docs/guides/datasets.md)\n";
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

/// What `adarl tasks verify` was given.
struct verify_options {
  std::string input, dataset, completions;
  format_options mapping;  ///< How --dataset's lines are read.
};

/// The requests named by the options; an error message (exit 2) otherwise.
result<std::vector<verify_request>> verify_input(const verify_options& o,
                                                 const verifier_registry& registry) {
  if (!o.dataset.empty() || !o.completions.empty()) {
    if (o.dataset.empty() || o.completions.empty() || !o.input.empty())
      return error{"--dataset and --completions go together, without --input"};
    auto format = o.mapping.format();
    if (!format) return format.err();
    auto items = load_dataset(o.dataset, &registry, nullptr, *format);
    if (!items) return error{items.err().message + "\n" + kDatasetSchema};
    std::ifstream file(o.completions);
    if (!file) return error{o.completions + ": cannot open the file"};
    return read_completions(file, o.completions, *items);
  }
  if (o.mapping.given())
    return error{"--field, --verifier, --prompt-template and --verifier-for read the lines of "
                 "--dataset"};
  if (o.input.empty() || o.input == "-") return read_verify_requests(std::cin, "<stdin>", registry);
  std::ifstream file(o.input);
  if (!file) return error{o.input + ": cannot open the file"};
  return read_verify_requests(file, o.input, registry);
}

int run_verify(const verify_options& o, std::ostream& out, std::ostream& err) {
  const auto registry = verifier_registry::with_builtins();
  const auto requests = verify_input(o, registry);
  if (!requests) {
    err << "adarl tasks verify: " << requests.err().message << "\n";
    return 2;
  }
  std::vector<verdict> verdicts(requests->size());
  tbb::parallel_for(std::size_t{0}, requests->size(), [&](std::size_t i) {
    verdicts[i] = verify_item(registry, (*requests)[i].item, (*requests)[i].completion);
  });
  std::map<std::string, std::size_t> reasons;
  std::size_t rewarded = 0;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    out << verdict_json((*requests)[i], verdicts[i]) << '\n';
    if (verdicts[i].reward > 0.f)
      ++rewarded;
    else
      ++reasons[verdicts[i].reason];
  }
  out << std::flush;
  err << "adarl tasks verify: " << verdicts.size() << " lines, " << rewarded << " rewarded";
  if (!reasons.empty()) err << "; reasons: " << counts(reasons);
  err << "\n";
  return out ? 0 : 1;
}

/// `adarl tasks check FILE` (or --input FILE).
void add_check(CLI::App& tasks, int& exit_code) {
  auto input = std::make_shared<std::string>();
  auto positional = std::make_shared<std::string>();
  auto* check = tasks.add_subcommand(
      "check",
      "Load a JSONL dataset: report every problem and every reference its verifier cannot "
      "use (exit 2), or count items per task");
  check->add_option("file", *positional, "JSONL dataset file (or --input)");
  check->add_option("--input", *input, "JSONL dataset file");
  auto mapping = std::make_shared<format_options>();
  mapping->add_to(*check);
  check->callback([input, positional, mapping, &exit_code] {
    if (!input->empty() && !positional->empty() && *input != *positional) {
      std::cerr << "adarl tasks check: give the file once (FILE or --input), got \""
                << *positional << "\" and \"" << *input << "\"\n";
      exit_code = 2;
      return;
    }
    const std::string file = input->empty() ? *positional : *input;
    if (file.empty()) {
      std::cerr << "adarl tasks check: a dataset file is required (FILE or --input)\n";
      exit_code = 2;
      return;
    }
    const auto format = mapping->format();
    if (!format) {
      std::cerr << "adarl tasks check: " << format.err().message << "\n";
      exit_code = 2;
      return;
    }
    exit_code = run_check(file, *format, std::cout, std::cerr);
  });
}

/// `adarl tasks verify`.
void add_verify(CLI::App& tasks, int& exit_code) {
  auto v = std::make_shared<verify_options>();
  auto* verify = tasks.add_subcommand(
      "verify",
      "Score completions: JSONL {\"answer\", \"completion\", \"verifier\"} in, one "
      "{\"reward\", \"reason\"} per line out, a summary on stderr");
  verify->add_option("--input", v->input, "JSONL of answer/completion/verifier (default stdin)");
  verify->add_option("--dataset", v->dataset, "a dataset, with --completions");
  verify->add_option("--completions", v->completions,
                     "JSONL of {\"id\", \"completion\"} naming items of --dataset");
  v->mapping.add_to(*verify);
  verify->callback([v, &exit_code] { exit_code = run_verify(*v, std::cout, std::cerr); });
}

}  // namespace

CLI::App* add_tasks_command(CLI::App& app, int& exit_code) {
  auto* tasks = app.add_subcommand(
      "tasks",
      "Task datasets: export a built-in suite as JSONL, check a dataset file, score "
      "completions, select prompts");

  auto o = std::make_shared<export_options>();
  auto* ex = tasks->add_subcommand(
      "export", "Write items of a built-in suite as JSONL (docs/guides/datasets.md)");
  ex->add_option("--suite", o->suite, "math, code, general, reasoning or mixed");
  ex->add_option("--count", o->count, "number of items (default 100)");
  ex->add_option("--seed", o->seed, "generator seed (default 1)");
  ex->add_option("--out", o->out, "output file, written atomically (default: stdout)");
  ex->add_option("--split", o->split, "train (default) or held-out");
  ex->add_option("--mix", o->mix, "weights of difficulty levels 1..5, e.g. 1,1,1,0,0");
  ex->callback([o, &exit_code] { exit_code = run_export(*o, std::cout, std::cerr); });

  add_check(*tasks, exit_code);
  add_verify(*tasks, exit_code);

  tasks->callback([tasks, &exit_code] {
    if (tasks->get_subcommands().empty()) {
      std::cerr << "adarl tasks: expected a subcommand: export, check, verify or select (see "
                   "--help)\n";
      exit_code = 2;
    }
  });
  return tasks;
}

}  // namespace adarl
