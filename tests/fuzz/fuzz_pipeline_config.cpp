// Fuzzes the pipeline config reader (config/pipeline_reader.hpp) on arbitrary YAML:
// the reader never throws or crashes, is deterministic, names the file in every error,
// and a config it accepts satisfies the ranges it promises to check.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/pipeline_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// The reader opens tasks.dataset, model.base_checkpoint and the CURVE key files by
// name; keep the fuzzer away from device and kernel files (a read of /dev/zero never
// ends) so that a run depends on the input alone.
bool names_special_file(const std::string& text) {
  for (const char* p : {"/dev", "/proc", "/sys"})
    if (text.find(p) != std::string::npos) return true;
  return false;
}

void check_accepted(const adarl::pipeline_config& c) {
  FUZZ_CHECK(!c.name.empty() && !c.out.empty(),
             "a run has a name and an output directory");
  FUZZ_CHECK(c.tracker.steps >= 1, "a run must end");
  FUZZ_CHECK(c.tracker.prompts_per_step >= 1, "prompts_per_step >= 1");
  FUZZ_CHECK(c.tracker.lease_ns > 0, "lease_seconds > 0");
  FUZZ_CHECK(c.tracker.seed == c.seed, "the tracker gets the run's seed");
  FUZZ_CHECK(c.sampling.temperature > 0, "temperature > 0");
  FUZZ_CHECK(c.sampling.top_p > 0 && c.sampling.top_p <= 1, "0 < top_p <= 1");
  FUZZ_CHECK(c.learner.optimizer.lr > 0, "lr > 0");
  FUZZ_CHECK(c.learner.optimizer.beta1 >= 0 && c.learner.optimizer.beta1 < 1, "beta1");
  FUZZ_CHECK(c.learner.optimizer.beta2 >= 0 && c.learner.optimizer.beta2 < 1, "beta2");
  FUZZ_CHECK(c.learner.loss.dual_clip > 1, "dual_clip > 1");
  FUZZ_CHECK(c.actors.sim_latency.max_steps >= c.actors.sim_latency.min_steps,
             "max_steps >= min_steps");
  const auto& pool = c.actors.remote_verifiers.pool;
  FUZZ_CHECK(pool.heartbeat > 0 && pool.timeout > pool.heartbeat, "heartbeat < timeout");
  FUZZ_CHECK(c.tasks.difficulty_mix.size() <= 5, "at most five difficulty weights");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (names_special_file(text)) return 0;
  YAML::Node root;
  try {  // as load_yaml_file: a syntax error is the file's error, not the reader's
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    FUZZ_CHECK(!e.msg.empty(), "a YAML error has a message");
    return 0;
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) return 0;  // load_yaml_file's "expected a mapping at the top level"

  const auto first = adarl::read_pipeline_config(root, "fuzz.yaml", "fuzz");
  const auto again = adarl::read_pipeline_config(root, "fuzz.yaml", "fuzz");
  FUZZ_CHECK(first.ok() == again.ok(), "reading does not change the document");
  if (!first) {
    const std::string& m = first.err().message;
    FUZZ_CHECK(adarl::fuzz::starts_with(m, "fuzz.yaml"), m);
    FUZZ_CHECK(m.back() != '\n', m);
    FUZZ_CHECK(m == again.err().message, m + "\nthen\n" + again.err().message);
    return 0;
  }
  check_accepted(*first);
  return 0;
}
