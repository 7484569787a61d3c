// Fuzzes the math verifier's symbolic path (tasks/math_verifier.hpp): normalisation, the
// LaTeX reader, the GiNaC translation and the comparisons. Input: the reference answer on
// the first line, the completion after it. Checks: nothing throws; every verdict is 0 or
// 1 with a known reason, the reason empty exactly when rewarded; a verification uses
// well under a second of CPU time (limits.budget is 100 ms); check_reference does not
// throw; and a reference that check_reference accepts, boxed as a completion, scores 1
// (the reference and the answer are read the same way and the comparison is reflexive).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "math/math_extract.hpp"
#include "math/math_latex_parser.hpp"
#include "math/math_normalize.hpp"
#include "math/math_number.hpp"
#include "math/math_scalar_engine.hpp"
#include "tasks/math_verifier.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

bool known_reason(const std::string& r) {
  return r == "no_answer" || r == "unparsable" || r == "wrong_value" || r == "bad_reference" ||
         r == "too_complex" || r == "timeout";
}

adarl::verdict timed_verify(const adarl::math_verifier& v, const adarl::task_item& item,
                            const std::string& completion) {
  const auto start = adarl::math_thread_cpu_time();
  const adarl::verdict d = v.verify(item, completion);
  const auto took = adarl::math_thread_cpu_time() - start;
  FUZZ_CHECK(took < std::chrono::seconds(1),
             "slow: " + std::to_string(std::chrono::duration<double>(took).count()) + " s");
  FUZZ_CHECK(d.reward == 0.f || d.reward == 1.f, d.reason);
  FUZZ_CHECK((d.reward == 1.f) == d.reason.empty(), d.reason);
  if (d.reward == 0.f) FUZZ_CHECK(known_reason(d.reason), d.reason);
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string reference(input.substr(0, nl));
  const std::string completion(nl == std::string_view::npos ? std::string_view()
                                                            : input.substr(nl + 1));
  // The reader alone, on the raw and the normalised text.
  const adarl::math_limits limits;
  (void)adarl::parse_math_latex(completion, limits);
  (void)adarl::parse_math_latex(adarl::normalize_math_answer(completion), limits);

  static const adarl::math_verifier verifier;
  adarl::task_item item;
  item.answer = reference;
  item.verifier = "math";
  timed_verify(verifier, item, completion);

  if (!verifier.check_reference(item).empty()) return 0;
  const std::vector<adarl::extraction> order = adarl::math_verifier_config{}.order;
  // What the verifier takes the reference to state: the whole of it when it is a plain
  // number (its fast path), else what extraction finds.
  const std::string stated(adarl::parse_math_value(reference)
                               ? std::string_view(reference)
                               : adarl::extract_reference(reference, order));
  const std::string boxed = "\\boxed{" + stated + "}";
  const auto found = adarl::extract_first(boxed, order);
  if (!found || *found != stated) return 0;  // braces that do not survive boxing
  const adarl::verdict self = timed_verify(verifier, item, boxed);
  FUZZ_CHECK(self.reward == 1.f || self.reason == "timeout",
             "reference \"" + reference + "\" against itself: " + self.reason);
  return 0;
}
