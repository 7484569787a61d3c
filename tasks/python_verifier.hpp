#pragma once
// The python verifier: a program run against stdin/stdout tests in the sandbox.

#include <string>
#include <string_view>

#include "tasks/python_runner.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

/// Scores a Python program against hidden stdin/stdout tests, running it in the
/// sandbox of tasks/python_runner.hpp once per case (stopping at the first failure).
/// The program is extract_program(completion) (tasks/expr_verifier.hpp).
///
/// The tests format (item.tests, a dataset line's "tests" as a JSON object or as a
/// string holding one; docs/guides/datasets.md):
///   {"cases": [{"input": "1 2\n", "output": "3"}, {"output": "hello"}]}
/// - "cases": a non-empty array of objects;
/// - "output": a string, required: the expected stdout; compared trimmed of surrounding
///   blanks on both sides, so a final newline does not matter;
/// - "input": a string, optional (default empty): the program's stdin;
/// - other keys are ignored.
/// Or a test program run once after the program, which passes when the run exits with
/// status 0 (a failed assert is "wrong_output"):
///   {"check": "def check(candidate): ...", "entry_point": "f", "prefix": "..."}
///   (HumanEval: check(f) is called; "prefix", the prompt's code, is put before a
///   completion that does not define f itself, i.e. a body-only completion), or
///   ["assert f(1) == 2", ...] / {"asserts": [...], "setup": "import math"} (MBPP).
/// Anything else (an array of pairs, numbers for strings, no cases, a check without
/// "def check(") is "bad_tests" (check_reference says so before a run starts).
/// A case passes when the program exited with status 0 and its trimmed stdout equals the
/// trimmed "output". Reward 1 when every case
/// passes, else 0 with reason "python_unavailable" (no interpreter: every verify),
/// "bad_tests", "no_program", "size_limit" (program over max_program_bytes), "timeout",
/// "memory_limit", "output_limit", "crashed" (non-zero exit or signal), "wrong_output"
/// or "sandbox_error" (the sandbox could not be set up, e.g. fork failed).
/// Registry name "python". Stateless and thread-safe; blocks for up to
/// cases * config.timeout; about 15-30 ms per case (interpreter start-up).
class python_verifier final : public verifier {
 public:
  /// A verifier whose runs use `config`.
  explicit python_verifier(python_config config = {}) : runner_(std::move(config)) {}

  std::string_view name() const override { return "python"; }
  verdict verify(const task_item& item, std::string_view completion) const override;
  /// "" when item.tests is in the cases format above, else why not.
  std::string check_reference(const task_item& item) const override;

  /// The sandbox, e.g. to report its isolation at start-up.
  const python_runner& runner() const { return runner_; }

 private:
  python_runner runner_;
};

}  // namespace adarl
