#pragma once
// One task item: prompt, reference answer, task, verifier, tests and difficulty.

#include <cstdint>
#include <string>
#include <vector>

namespace adarl {

/// One task: a prompt the policy answers and what its verifier needs to score it.
/// The JSONL form is {"id","prompt","answer","task","verifier"} plus optional "tests",
/// "difficulty", "system" and "solution" (tasks/dataset.hpp).
struct task_item {
  std::string id;          ///< Unique within a dataset, e.g. "math-train-3-000017".
  std::string prompt;      ///< What the policy sees (the user turn of a chat model).
  std::string answer;      ///< Reference answer (math: a number; general: the string;
                           ///< code: a reference program, informative only).
  std::string task;        ///< Suite: "math", "code" or "general" (free text for datasets).
  std::string verifier;    ///< Registry name of the verifier that scores completions.
  std::string tests;       ///< Code tasks: hidden tests as JSON (the verifier's format).
  uint32_t difficulty = 0; ///< Difficulty level, 1 (easiest) to 5; 0 = unknown.
  /// A system turn of this item's own (a dataset's chat-message prompt): a chat model
  /// renders it as its template's system turn in place of model.system_prompt; the
  /// character policy and base models read it before the prompt, with a blank line
  /// between. "" = none.
  std::string system{};
  /// A worked solution the SFT warm start trains on in place of the answer: a
  /// derivation ending in the answer (the reasoning suite's traces; a plain dataset
  /// line's optional "solution"). The verifier never sees it. "" = the answer alone.
  std::string solution{};
};

/// Which part of a suite: train and held-out never share an item (by prompt text).
enum class split { train, held_out };

/// What to generate from a procedural suite.
struct suite_request {
  uint64_t seed = 1;
  uint32_t count = 100;
  /// Relative weight of difficulty levels 1..5 (missing levels weigh 0). Default: even.
  std::vector<double> difficulty_mix{1, 1, 1, 1, 1};
  split part = split::train;
};

}  // namespace adarl
