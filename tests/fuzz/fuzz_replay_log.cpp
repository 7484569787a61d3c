// Fuzzes the reward-log reader of `adarl replay` (experiments/replay_log.hpp) from memory.
// An error is one line naming the log; an accepted log holds what the reader promises:
// unique non-empty ids on increasing lines, rewards finite as floats, one token count
// per reward when logged, p_hat in [0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <unordered_set>

#include "experiments/replay_log.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const auto log = adarl::read_replay_log(in, "fuzz.jsonl");
  if (!log) {
    const std::string& m = log.err().message;
    FUZZ_CHECK(adarl::fuzz::starts_with(m, "fuzz.jsonl:"), m);
    FUZZ_CHECK(m.find('\n') == std::string::npos, "one line: " + m);
    return 0;
  }
  FUZZ_CHECK(!log->empty(), "an accepted log has prompts");
  std::unordered_set<std::string> ids;
  uint32_t previous_line = 0;
  for (const auto& p : *log) {
    FUZZ_CHECK(!p.id.empty() && ids.insert(p.id).second, "unique non-empty id " + p.id);
    FUZZ_CHECK(p.line > previous_line, p.id);
    previous_line = p.line;
    for (double r : p.rewards)
      FUZZ_CHECK(std::isfinite(r) && std::fabs(r) <= std::numeric_limits<float>::max(),
                 p.id);
    FUZZ_CHECK(p.tokens.empty() || p.tokens.size() == p.rewards.size(), p.id);
    if (p.p_hat) FUZZ_CHECK(*p.p_hat >= 0 && *p.p_hat <= 1, p.id);
  }
  return 0;
}
