#pragma once
// The expr verifier: runs the program a completion proposes against hidden tests.

#include <string>
#include <string_view>

#include "tasks/expr_lang.hpp"
#include "tasks/verifier.hpp"

namespace adarl {

/// The program a completion proposes, as a view into it (shared by the code
/// verifiers "expr" and "python"): whichever comes last of the text after the last
/// "####" and the content of the last complete fenced block (```...```, without a
/// language tag on the opening line, as in ```python, when more lines follow), else
/// the whole completion; trimmed of blanks. So a "####" inside a fenced block (a python
/// comment) does not cut the program. Empty when nothing remains. Pure, no allocation;
/// O(completion length).
std::string_view extract_program(std::string_view completion);

/// Scores a completion of a "code" suite item (tasks/code_suite.hpp): the extracted
/// program (extract_program) must parse as an expression program (tasks/expr_lang.hpp)
/// and give the expected value on every hidden test of item.tests, a JSON object
/// {"cases": [[x, y], ...]} of 64-bit integers. Any program that passes is right, not
/// only the reference. Reward 1, else 0 with reason "bad_tests" (item.tests malformed
/// or without cases), "no_program", "parse_error", "size_limit", "step_limit",
/// "runtime_error" (division by zero or overflow) or "wrong_output".
/// Registry name "expr". Stateless and thread-safe; caches nothing; about 5 us per
/// verification with four tests (parse the tests, parse once, evaluate four times).
class expr_verifier final : public verifier {
 public:
  /// A verifier with the given program limits.
  explicit expr_verifier(expr_limits limits = {}) : limits_(limits) {}

  std::string_view name() const override { return "expr"; }
  verdict verify(const task_item& item, std::string_view completion) const override;
  /// "" when item.tests is {"cases": [[x, y], ...]} as above, else why not.
  std::string check_reference(const task_item& item) const override;

 private:
  expr_limits limits_;
};

}  // namespace adarl
