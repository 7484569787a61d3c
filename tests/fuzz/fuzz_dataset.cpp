// Fuzzes the JSONL dataset loader (tasks/dataset.hpp) from memory, with the built-in
// verifier registry, in adarl's own format and through a dataset_format (columns mapped,
// a default verifier, a prompt template). Every line of an error names the file; an
// accepted dataset holds items with the fields it promises (unique non-empty ids,
// difficulty 0..5, the template around every prompt) and reads back equal from its own
// to_jsonl() text in adarl's own format.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_set>

#include "tasks/dataset.hpp"
#include "tasks/verifier_registry.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

bool same(const adarl::task_item& a, const adarl::task_item& b) {
  return a.id == b.id && a.prompt == b.prompt && a.answer == b.answer &&
         a.task == b.task && a.verifier == b.verifier && a.tests == b.tests &&
         a.difficulty == b.difficulty;
}

void check_load(const std::string& input, const adarl::dataset_format& format) {
  static const auto registry = adarl::verifier_registry::with_builtins();
  std::istringstream in(input);
  const auto loaded = adarl::load_dataset(in, "fuzz.jsonl", &registry, nullptr, format);
  if (!loaded) {
    const std::string& m = loaded.err().message;
    FUZZ_CHECK(!m.empty(), "an error has a message");
    std::istringstream lines(m);
    size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count)
      FUZZ_CHECK(adarl::fuzz::starts_with(line, "fuzz.jsonl:"),
                 "a line names the file: " + m);
    FUZZ_CHECK(count <= adarl::max_dataset_errors + 1,
               "at most 20 problems and a note: " + m);
    return;
  }
  FUZZ_CHECK(!loaded->empty(), "an accepted dataset has items");
  std::unordered_set<std::string> ids;
  std::string text;
  for (const auto& item : *loaded) {
    FUZZ_CHECK(!item.id.empty() && !item.prompt.empty() && !item.verifier.empty(),
               item.id);
    FUZZ_CHECK(registry.find(item.verifier).ok(), item.verifier);
    FUZZ_CHECK(item.difficulty <= 5, item.id);
    FUZZ_CHECK(ids.insert(item.id).second, "unique id " + item.id);
    if (!format.prompt_template.empty())
      FUZZ_CHECK(adarl::fuzz::starts_with(item.prompt, "Q: ") &&
                     item.prompt.size() >= format.prompt_template.size() - 8 + 1,
                 "the template wraps the prompt: " + item.prompt);
    text += adarl::to_jsonl(item) + "\n";
  }
  std::istringstream back(text);
  const auto reread = adarl::load_dataset(back, "again.jsonl", &registry);
  FUZZ_CHECK(reread.ok(), reread.ok() ? "" : reread.err().message);
  FUZZ_CHECK(reread->size() == loaded->size(), text);
  for (size_t i = 0; i < reread->size(); ++i)
    FUZZ_CHECK(same((*reread)[i], (*loaded)[i]), adarl::to_jsonl((*loaded)[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check_load(input, {});
  // A dataset as published: MATH's columns, a default verifier and a template
  // ("{prompt}" is 8 characters: a prompt of one makes the template's length - 7).
  static const adarl::dataset_format published{
      {{"prompt", "problem"}, {"answer", "solution"}}, "math", "Q: {prompt}\nA:"};
  check_load(input, published);
  return 0;
}
