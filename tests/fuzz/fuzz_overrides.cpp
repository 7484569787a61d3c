// Fuzzes command-line overrides (apply_override in config/config_reader.hpp,
// apply_overrides in config/pipeline_reader.hpp): each input line is one
// `key.path=value` applied to a small valid document, which is then read. Nothing throws
// or crashes; a rejected override is an error naming the file and quoting it; an accepted
// one leaves its value at its path, without a line number.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_reader.hpp"
#include "config/pipeline_reader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

constexpr const char* kDocument = R"(name: smoke
seed: 1
model: {kind: simulated, d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, max_len: 64}
tasks: {suite: mixed, train: 16, held_out: 4}
strategy: {kind: grpo, group_size: 4}
tracker: {prompts_per_step: 4, steps: 2}
sampling: {temperature: 1.0, max_new_tokens: 8}
actors: {remote_verifiers: {heartbeat: 0.5, timeout: 3.0}}
)";

constexpr size_t kMaxOverrides = 16;

bool names_special_file(const std::string& text) {  // as in fuzz_pipeline_config.cpp
  for (const char* p : {"/dev", "/proc", "/sys"})
    if (text.find(p) != std::string::npos) return true;
  return false;
}

// The node at the dotted path of `assignment`, or an undefined node.
YAML::Node at_path(const YAML::Node& root, const std::string& assignment) {
  std::vector<YAML::Node> chain{root};
  std::stringstream keys(assignment.substr(0, assignment.find('=')));
  for (std::string k; std::getline(keys, k, '.');) {
    const YAML::Node& parent = chain.back();
    if (!parent.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    chain.push_back(parent[k]);  // const operator[]: never inserts
  }
  return chain.back();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (names_special_file(text)) return 0;
  std::vector<std::string> overrides;
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line) && overrides.size() < kMaxOverrides;)
    overrides.push_back(line);

  YAML::Node root = YAML::Load(kDocument);
  const auto applied = adarl::apply_overrides(root, overrides, "fuzz.yaml");
  if (!applied) {
    const std::string& m = applied.err().message;
    FUZZ_CHECK(adarl::fuzz::starts_with(m, "fuzz.yaml: override \""), m);
    return 0;
  }
  if (!overrides.empty()) {
    // The last override's value is in place, as YAML, with no position in the file.
    const std::string& last = overrides.back();
    const YAML::Node value = YAML::Load(last.substr(last.find('=') + 1));
    const YAML::Node placed = at_path(root, last);
    FUZZ_CHECK(placed.IsDefined(), last);
    FUZZ_CHECK(placed.Type() == value.Type(), last);
    if (value.IsScalar()) FUZZ_CHECK(placed.Scalar() == value.Scalar(), last);
    FUZZ_CHECK(placed.Mark().line < 0, "an overridden value has no line: " + last);
  }
  const auto config = adarl::read_pipeline_config(root, "fuzz.yaml", "fuzz");
  if (!config) {
    const std::string& m = config.err().message;
    FUZZ_CHECK(adarl::fuzz::starts_with(m, "fuzz.yaml"), m);
  } else {
    FUZZ_CHECK(config->tracker.steps >= 1 && config->sampling.temperature > 0,
               "an accepted config is in range");
  }
  return 0;
}
