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

std::string python_verifier::check_reference(const task_item& item) const {
  try {
    if (parse_cases(item.tests)) return "";
  } catch (...) {  // bad_alloc
  }
  return "its \"tests\" are not in the python cases format {\"cases\": [{\"input\": "
         "\"...\", \"output\": \"...\"}, ...]} (tasks/python_verifier.hpp)";
}

verdict python_verifier::verify(const task_item& item,
                                std::string_view completion) const {
  try {
    if (!runner_.available()) return {0.f, "python_unavailable"};
    const auto cases = parse_cases(item.tests);
    if (!cases) return {0.f, "bad_tests"};
    const std::string_view program = extract_program(completion);
    if (program.empty()) return {0.f, "no_program"};
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
