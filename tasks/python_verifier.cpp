#include "tasks/python_verifier.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/text.hpp"
#include "tasks/expr_verifier.hpp"

namespace adarl {

namespace {

struct io_case {
  std::string input;
  std::string output;
};

/// A test program run once after the completion's (HumanEval's check(candidate), MBPP's
/// assert lines): the program passes when the run exits with status 0.
struct test_program {
  std::string prefix;       ///< HumanEval: the prompt's code, put before a body-only program.
  std::string entry_point;  ///< HumanEval: the function check() is called with.
  std::string code;         ///< check()'s definition, or the assert lines (and set-up).
};

/// Parses the test-program formats: {"check", "entry_point", "prefix"?} (HumanEval),
/// ["assert ...", ...] or {"asserts": [...], "setup"?} (MBPP); nullopt otherwise.
std::optional<test_program> parse_test_program(const nlohmann::json& doc) {
  const auto strings = [](const nlohmann::json& a) {
    if (!a.is_array() || a.empty()) return false;
    for (const auto& x : a)
      if (!x.is_string()) return false;
    return true;
  };
  const auto asserts = [](const nlohmann::json& a, const std::string& setup) {
    std::string code = setup.empty() ? "" : setup + "\n";
    for (const auto& x : a) code += x.get<std::string>() + "\n";
    return test_program{"", "", code};
  };
  if (strings(doc)) return asserts(doc, "");
  if (!doc.is_object()) return std::nullopt;
  const auto text = [&](const char* key) -> std::optional<std::string> {
    const auto it = doc.find(key);
    if (it == doc.end()) return std::string();
    if (!it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (doc.contains("asserts")) {
    const auto setup = text("setup");
    if (!strings(doc["asserts"]) || !setup) return std::nullopt;
    return asserts(doc["asserts"], *setup);
  }
  const auto check = text("check"), entry = text("entry_point"), prefix = text("prefix");
  if (!check || !entry || !prefix || check->empty() || entry->empty()) return std::nullopt;
  if (check->find("def check(") == std::string::npos) return std::nullopt;
  return test_program{*prefix, *entry, *check};
}

/// The program a test program runs: HumanEval's prompt first when the completion does
/// not define the entry point itself (a body-only completion, taken with its first
/// line's indentation from `completion`, which `program` is a part of), then the tests.
std::string with_tests(std::string_view completion, std::string_view program,
                       const test_program& t) {
  std::string out;
  if (!t.entry_point.empty() &&
      program.find("def " + t.entry_point + "(") == std::string_view::npos) {
    out = t.prefix;
    size_t begin = size_t(program.data() - completion.data());
    while (begin > 0 && (completion[begin - 1] == ' ' || completion[begin - 1] == '\t')) --begin;
    program = completion.substr(begin, size_t(program.data() - completion.data()) - begin +
                                           program.size());
  }
  out += program;
  out += "\n\n" + t.code;
  if (!t.entry_point.empty()) out += "\n\ncheck(" + t.entry_point + ")\n";
  return out;
}

/// Parses {"cases": [{"input": "...", "output": "..."}, ...]}; nullopt when malformed
/// or empty.
std::optional<std::vector<io_case>> parse_cases(const std::string& tests) {
  const auto doc = nlohmann::json::parse(tests, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto it = doc.find("cases");
  if (it == doc.end() || !it->is_array() || it->empty()) return std::nullopt;
  std::vector<io_case> cases;
  for (const auto& c : *it) {
    if (!c.is_object()) return std::nullopt;
    const auto in = c.find("input");
    const auto out = c.find("output");
    if (out == c.end() || !out->is_string() || (in != c.end() && !in->is_string())) {
      return std::nullopt;
    }
    cases.push_back(
        {in == c.end() ? "" : in->get<std::string>(), out->get<std::string>()});
  }
  return cases;
}

/// The reason a run that did not exit with status 0 fails.
std::string reason_of(const python_run& run) {
  switch (run.status) {
    case python_status::exited:
      return run.exit_code == 0 ? "" : "crashed";
    case python_status::timeout:
      return "timeout";
    case python_status::signaled:
      return "crashed";
    case python_status::memory_limit:
      return "memory_limit";
    case python_status::output_limit:
      return "output_limit";
    case python_status::unavailable:
      return "python_unavailable";
    case python_status::program_too_large:
      return "size_limit";
    case python_status::sandbox_error:
      return "sandbox_error";
  }
  return "sandbox_error";
}

}  // namespace

namespace {

std::optional<test_program> test_program_of(const std::string& tests) {
  const auto doc = nlohmann::json::parse(tests, nullptr, /*allow_exceptions=*/false);
  return parse_test_program(doc);
}

}  // namespace

std::string python_verifier::check_reference(const task_item& item) const {
  try {
    if (parse_cases(item.tests) || test_program_of(item.tests)) return "";
  } catch (...) {  // bad_alloc
  }
  return "its \"tests\" are not in the python cases format {\"cases\": [{\"input\": "
         "\"...\", \"output\": \"...\"}, ...]}, nor a test program ({\"check\", "
         "\"entry_point\"} or assert lines) (tasks/python_verifier.hpp)";
}

verdict python_verifier::verify(const task_item& item,
                                std::string_view completion) const {
  try {
    if (!runner_.available()) return {0.f, "python_unavailable"};
    const auto cases = parse_cases(item.tests);
    const auto tests = cases ? std::nullopt : test_program_of(item.tests);
    if (!cases && !tests) return {0.f, "bad_tests"};
    const std::string_view program = extract_program(completion);
    if (program.empty()) return {0.f, "no_program"};
    if (tests) {
      const python_run run = runner_.run(with_tests(completion, program, *tests), "");
      // A failed assertion is a wrong answer; anything else that stops it, its reason.
      if (run.status == python_status::exited && run.exit_code != 0 &&
          run.err.find("AssertionError") != std::string::npos)
        return {0.f, "wrong_output"};
      if (std::string reason = reason_of(run); !reason.empty()) return {0.f, reason};
      return {1.f, ""};
    }
    for (const io_case& c : *cases) {
      const python_run run = runner_.run(program, c.input);
      if (std::string reason = reason_of(run); !reason.empty()) return {0.f, reason};
      if (trim_blanks(run.out) != trim_blanks(c.output)) return {0.f, "wrong_output"};
    }
    return {1.f, ""};
  } catch (...) {  // only std::bad_alloc can get here; verify never throws
    return {0.f, "sandbox_error"};
  }
}

}  // namespace adarl
