// Datasets as people publish them (tasks/dataset.hpp, dataset_format): columns mapped to
// task fields, defaults for what such files lack, the answer a solution states, a
// prompt template, and problems that name the file's column.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tasks/dataset.hpp"
#include "tasks/reference_check.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {
namespace {

const std::string data_dir = ADARL_TEST_DATA;
const std::string examples_dir = ADARL_SOURCE_DIR "/examples/datasets";

result<std::vector<task_item>> load_text(const std::string& text, const dataset_format& f,
                                         dataset_mapping_counts* counts = nullptr,
                                         std::vector<uint32_t>* lines = nullptr) {
  std::istringstream in(text);
  const auto registry = verifier_registry::with_builtins();
  return load_dataset(in, "d.jsonl", &registry, lines, f, counts);
}

TEST(DatasetFormatTest, GsmStyleLinesGetLineIdsTheDefaultVerifierAndTheNumberAfterHashes) {
  const dataset_format f{{{"prompt", "question"}}, "math", "", {}};
  dataset_mapping_counts n;
  std::vector<uint32_t> lines;
  const auto items = load_text(
      "{\"question\": \"Tom has 3 and gets 4. How many?\", \"answer\": \"3 + 4 = 7.\\n#### 7\"}\n"
      "\n"
      "{\"question\": \"Half of 10?\", \"answer\": \"10 / 2 = 5\\n#### 5\", \"verifier\": \"expr\"}\n",
      f, &n, &lines);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, "line-1");
  EXPECT_EQ((*items)[0].prompt, "Tom has 3 and gets 4. How many?");
  EXPECT_EQ((*items)[0].answer, "7");
  EXPECT_EQ((*items)[0].verifier, "math");
  EXPECT_EQ((*items)[0].task, "");
  // A line's own verifier wins over the default; expr references are kept as written.
  EXPECT_EQ((*items)[1].id, "line-3");
  EXPECT_EQ((*items)[1].verifier, "expr");
  EXPECT_EQ((*items)[1].answer, "10 / 2 = 5\n#### 5");
  EXPECT_EQ(lines, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(n.answers_hashes, 1u);
  EXPECT_EQ(n.answers_boxed, 0u);
  EXPECT_EQ(n.ids_from_lines, 2u);
  EXPECT_EQ(n.default_verifier, 1u);
}

TEST(DatasetFormatTest, MathStyleSolutionsGiveTheirLastBoxAndTheTemplateWrapsThePrompt) {
  const dataset_format f{{{"prompt", "problem"}, {"answer", "solution"}, {"id", "unique_id"},
                          {"task", "type"}},
                         "math",
                         "Problem: {prompt}\nAnswer:",
                         {}};
  dataset_mapping_counts n;
  const auto items = load_text(
      R"j({"problem": "Simplify $\\sqrt{52}$.", "solution": "First $\\boxed{4}$, then $\\boxed{2\\sqrt{13}}$.", "unique_id": "a/1", "type": "Algebra"})j"
      "\n"
      R"j({"problem": "Two?", "solution": " 2 ", "unique_id": "a/2", "type": "Algebra"})j"
      "\n",
      f, &n);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, "a/1");
  EXPECT_EQ((*items)[0].prompt, "Problem: Simplify $\\sqrt{52}$.\nAnswer:");
  EXPECT_EQ((*items)[0].answer, "2\\sqrt{13}");
  EXPECT_EQ((*items)[0].task, "Algebra");
  EXPECT_EQ((*items)[1].answer, "2");  // no box, no ####: the column trimmed
  EXPECT_EQ(n.answers_boxed, 1u);
  EXPECT_EQ(n.answers_whole, 1u);
  EXPECT_EQ(n.ids_from_lines, 0u);
}

TEST(DatasetFormatTest, NumbersAsAnswersAndPythonTestsFromAnotherColumn) {
  const dataset_format f{{{"prompt", "q"}, {"tests", "test_cases"}, {"answer", "code"}},
                         "", "", {}};
  const auto items = load_text(
      R"j({"q": "Sum?", "answer": 1, "code": "print(3)", "verifier": "python", "test_cases": {"cases": [{"output": "3"}]}})j"
      "\n"
      R"j({"q": "Pi?", "code": 3.5, "verifier": "math"})j"
      "\n",
      f);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  // The answer comes from "code", not from the unmapped "answer"; python keeps it whole.
  EXPECT_EQ((*items)[0].answer, "print(3)");
  EXPECT_EQ((*items)[0].tests, R"j({"cases":[{"output":"3"}]})j");
  EXPECT_EQ((*items)[1].answer, "3.5");
}

// MBPP's shape: an integer task_id, an assert list, and test_setup_code run before it.
TEST(DatasetFormatTest, MbppAssertListsTakeTheirSetupCodeAndIntegerIdsTheirText) {
  const dataset_format f{{{"id", "task_id"}, {"prompt", "text"}, {"tests", "test_list"}},
                         "python", "", {}};
  dataset_mapping_counts n;
  const auto items = load_text(
      R"j({"task_id": 11, "text": "Even?", "test_list": ["assert f(D) == 1"], "test_setup_code": "D = 2"})j"
      "\n"
      R"j({"task_id": 12, "text": "Odd?", "test_list": ["assert g(3)"], "test_setup_code": ""})j"
      "\n",
      f, &n);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, "11");
  EXPECT_EQ((*items)[0].tests, R"j({"asserts":["assert f(D) == 1"],"setup":"D = 2"})j");
  EXPECT_EQ((*items)[1].tests, R"j(["assert g(3)"])j");  // no setup: the list as it is
  EXPECT_EQ(n.setup_tests, 1u);
  EXPECT_EQ(n.number_ids, 2u);
  // A fractional id is still not an id.
  const auto bad = load_text(R"j({"task_id": 1.5, "text": "q", "test_list": []})j" "\n", f);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.err().message.find("column \"task_id\" (mapped to id): expected a string"),
            std::string::npos)
      << bad.err().message;
}

TEST(DatasetFormatTest, ProblemsNameTheColumnTheFieldIsMappedTo) {
  const dataset_format f{{{"prompt", "problem"}, {"id", "uid"}}, "math", "", {}};
  const auto items = load_text(
      "{\"question\": \"wrong column\", \"uid\": \"u1\"}\n"
      "{\"problem\": 5, \"uid\": \"u2\"}\n"
      "{\"problem\": \"no id\"}\n",
      f);
  ASSERT_FALSE(items);
  const std::string& m = items.err().message;
  EXPECT_NE(m.find("d.jsonl:1: column \"problem\" (mapped to prompt): missing"),
            std::string::npos) << m;
  EXPECT_NE(m.find("d.jsonl:2: column \"problem\" (mapped to prompt): expected a string, got 5"),
            std::string::npos) << m;
  // A mapped id is required: the line-number default is for files without the column.
  EXPECT_NE(m.find("d.jsonl:3: column \"uid\" (mapped to id): missing"), std::string::npos)
      << m;
}

TEST(DatasetFormatTest, WithoutADefaultVerifierEachLineNeedsOne) {
  const auto items = load_text("{\"question\": \"q\", \"answer\": \"1\"}\n",
                               dataset_format{{{"prompt", "question"}}, "", "", {}});
  ASSERT_FALSE(items);
  EXPECT_NE(items.err().message.find("d.jsonl:1: field \"verifier\": missing"),
            std::string::npos) << items.err().message;
}

// verl's format (DAPO-Math-17k, the Reinforce-Ada reference's prepared data): a
// chat-message prompt, the answer nested under reward_model, the verifier named by
// data_source (issue 37).
TEST(DatasetFormatTest, VerlStyleLinesLoadWithNestedColumnsChatPromptsAndSourceVerifiers) {
  dataset_format f{{{"answer", "reward_model.ground_truth"}, {"id", "extra_info.index"}},
                   "", "", {{"math_dapo", "math"}, {"lighteval/MATH", "math"}}};
  dataset_mapping_counts n;
  const auto items = load_text(
      R"({"data_source": "math_dapo", "prompt": [{"content": "Solve 3 + 4.", "role": "user"}], )"
      R"("ability": "MATH", "reward_model": {"ground_truth": "7", "style": "rule"}, )"
      R"("extra_info": {"index": "a-1"}})"
      "\n"
      R"({"data_source": "lighteval/MATH", "prompt": [{"role": "system", "content": "Think."}, )"
      R"({"role": "user", "content": "Half of 10?"}], "reward_model": {"ground_truth": 5}, )"
      R"("extra_info": {"index": "a-2"}})"
      "\n",
      f, &n);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, "a-1");
  EXPECT_EQ((*items)[0].prompt, "Solve 3 + 4.");
  EXPECT_EQ((*items)[0].answer, "7");
  EXPECT_EQ((*items)[0].verifier, "math");
  EXPECT_EQ((*items)[1].prompt, "Half of 10?");  // the user turn
  EXPECT_EQ((*items)[1].system, "Think.");       // the item's own system turn
  EXPECT_EQ((*items)[0].system, "");
  EXPECT_EQ((*items)[1].answer, "5");            // a nested number, as text
  EXPECT_EQ(n.chat_prompts, 2u);
  EXPECT_EQ(n.system_turns, 1u);
  // The system turn is kept when the items are written (selected.jsonl) and read back.
  const auto again = load_text(to_jsonl((*items)[1]) + "\n", dataset_format{});
  ASSERT_TRUE(again) << again.err().message;
  EXPECT_EQ((*again)[0].system, "Think.");
  EXPECT_EQ((*again)[0].prompt, "Half of 10?");
  EXPECT_EQ(n.source_verifier, 2u);
  // An array element by index; a key with dots in its name wins over the path.
  const auto indexed = load_text(
      R"({"p": [{"role": "user", "content": "q?"}], "a.b": "1", "a": {"b": "2"}, "verifier": "math"})"
      "\n",
      dataset_format{{{"prompt", "p.0.content"}, {"answer", "a.b"}}, "", "", {}});
  ASSERT_TRUE(indexed) << indexed.err().message;
  EXPECT_EQ((*indexed)[0].prompt, "q?");
  EXPECT_EQ((*indexed)[0].answer, "1");
}

TEST(DatasetFormatTest, VerlStyleProblemsNameTheLineTheColumnAndTheMessage) {
  dataset_format f{{{"answer", "reward_model.ground_truth"}}, "", "", {{"math_dapo", "math"}}};
  dataset_format with_system = f;
  with_system.columns["system"] = "sys";
  const auto bad = load_text(
      R"({"data_source": "math_dapo", "prompt": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "reward_model": {"ground_truth": "1"}})"
      "\n"
      R"({"data_source": "math_dapo", "prompt": [{"role": "user"}], "reward_model": {"ground_truth": "1"}})"
      "\n"
      R"({"data_source": "gsm8k", "prompt": "q", "reward_model": {"ground_truth": "1"}})"
      "\n"
      R"({"data_source": "math_dapo", "prompt": "q", "reward_model": {"truth": "1"}})"
      "\n"
      R"({"data_source": "math_dapo", "prompt": [{"role": "tool", "content": "x"}], "reward_model": {"ground_truth": "1"}})"
      "\n"
      R"({"data_source": "math_dapo", "sys": "A", "prompt": [{"role": "system", "content": "B"}, {"role": "user", "content": "q"}], "reward_model": {"ground_truth": "1"}})"
      "\n"
      R"({"data_source": "math_dapo", "prompt": "q", "sys": 3, "reward_model": {"ground_truth": "1"}})"
      "\n",
      with_system);
  ASSERT_FALSE(bad);
  const std::string m = bad.err().message;
  EXPECT_NE(m.find("d.jsonl:1: column \"prompt\" (a chat-message list): message 2: a multi-turn "
                   "prompt (assistant after the user turn)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:2: column \"prompt\" (a chat-message list): message 1: expected "
                   "{\"role\": string, \"content\": string}"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:3: column \"data_source\": no verifier for \"gsm8k\" (mapped: "
                   "math_dapo)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:4: column \"reward_model.ground_truth\" (mapped to answer): missing"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:5: column \"prompt\" (a chat-message list): message 1: role \"tool\""),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:6: column \"prompt\" (a chat-message list): a system message, and "
                   "the column \"sys\" too: keep one of them"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("d.jsonl:7: column \"sys\" (mapped to system): expected a string"),
            std::string::npos)
      << m;
  // A data_source mapped to an unknown verifier is refused before any line.
  const auto unknown =
      load_text("{\"prompt\": \"q\"}\n", dataset_format{{}, "", "", {{"s", "mth"}}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.err().message.find("d.jsonl: the verifier of data_source \"s\": "),
            std::string::npos)
      << unknown.err().message;
}

TEST(DatasetFormatTest, ABadFormatIsRefusedBeforeAnyLine) {
  EXPECT_EQ(check_dataset_format({{{"prompt", "problem"}}, "math", "Q: {prompt}", {}}, "k"), "");
  EXPECT_NE(check_dataset_format({{{"promt", "problem"}}, "", "", {}}, "k")
                .find("k: unknown task field \"promt\""),
            std::string::npos);
  EXPECT_NE(check_dataset_format({{{"prompt", "x"}, {"answer", "x"}}, "", "", {}}, "k")
                .find("k: answer and prompt both read column \"x\""),
            std::string::npos);
  EXPECT_NE(check_dataset_format({{{"prompt", ""}}, "", "", {}}, "k").find("k.prompt: expected"),
            std::string::npos);
  EXPECT_NE(check_dataset_format({{}, "", "no slot", {}}, "k").find("prompt_template: expected"),
            std::string::npos);
  EXPECT_NE(check_dataset_format({{}, "", "{prompt}{prompt}", {}}, "k").find("once"),
            std::string::npos);
  const auto unknown = load_text("{\"prompt\": \"q\"}\n", dataset_format{{}, "mth", "", {}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.err().message.rfind("d.jsonl: the verifier for lines without one: ", 0),
            0u) << unknown.err().message;
}

TEST(DatasetFormatTest, APlainFormatReadsAdarlsOwnFilesAsBefore) {
  const auto plain = load_dataset(data_dir + "/tasks_good.jsonl");
  ASSERT_TRUE(plain) << plain.err().message;
  // Lines without an id are refused in adarl's own format (no line-number default).
  const auto no_id = load_text(
      "{\"prompt\": \"p\", \"answer\": \"1\", \"task\": \"\", \"verifier\": \"math\"}\n",
      dataset_format{});
  ASSERT_FALSE(no_id);
  EXPECT_NE(no_id.err().message.find("field \"id\": missing"), std::string::npos);
}

TEST(DatasetFormatTest, TheShippedExamplesLoadWithTheirMappingAndEveryReferenceIsUsable) {
  struct example {
    std::string file;
    dataset_format format;
    size_t items;
  };
  const std::vector<example> examples{
      {"gsm8k-style.jsonl", {{{"prompt", "question"}}, "math", "Q: {prompt}\nA:", {}}, 32},
      {"math-style.jsonl",
       {{{"prompt", "problem"}, {"answer", "solution"}, {"id", "unique_id"}, {"task", "type"}},
        "math", "", {}},
       24},
      {"code-style.jsonl",
       {{{"id", "task_id"}, {"prompt", "question"}, {"answer", "reference_solution"},
         {"tests", "test_cases"}},
        "python", "", {}},
       8},
      {"humaneval-style.jsonl",
       {{{"id", "task_id"}, {"answer", "canonical_solution"}, {"tests", "test"}},
        "python",
        "",
        {}},
       4},
      {"mbpp-style.jsonl",
       {{{"id", "task_id"}, {"prompt", "text"}, {"answer", "code"}, {"tests", "test_list"}},
        "python",
        "",
        {}},
       4},
      {"verl-style.jsonl",
       {{{"answer", "reward_model.ground_truth"}, {"id", "extra_info.index"}},
        "",
        "",
        {{"math_dapo", "math"}, {"lighteval/MATH", "math"}, {"openai/gsm8k", "math"}}},
       12},
  };
  const auto registry = verifier_registry::with_builtins();
  for (const auto& e : examples) {
    SCOPED_TRACE(e.file);
    dataset_mapping_counts n;
    const auto items =
        load_dataset(examples_dir + "/" + e.file, &registry, nullptr, e.format, &n);
    ASSERT_TRUE(items) << items.err().message;
    EXPECT_EQ(items->size(), e.items);
    EXPECT_TRUE(find_unusable_references(*items, registry).empty());
    // Each verifier accepts its own reference as a completion.
    for (const auto& item : *items) {
      if (item.verifier == "python") continue;  // the sandbox: tested by cli.tasks.fields
      EXPECT_EQ(verify_item(registry, item, "\\boxed{" + item.answer + "}").reward, 1.f)
          << item.id << " " << item.answer;
    }
  }
}

}  // namespace
}  // namespace adarl

namespace adarl {
namespace {

// Issue 38: a number answer keeps the text it was written with. Parsed to a double,
// 18446744073709551616 became 1.8446744073709552e+19 (the right completion scored
// wrong_value) and 1.0000000000000000001 became 1.0. The mapped answer column is read
// as written, even when it is not called "answer".
TEST(DatasetFormatTest, NumberAnswersKeepTheirSourceText) {
  const dataset_format f{{{"prompt", "question"}, {"answer", "target"}}, "math", "", {}};
  const auto items = load_text(
      "{\"question\": \"2^64?\", \"target\": 18446744073709551616}\n"
      "{\"question\": \"tiny\", \"target\": 1.0000000000000000001}\n"
      "{\"question\": \"int\", \"target\": -42}\n"
      "{\"question\": \"exp\", \"target\": 2.5e-3, \"other\": 0.1}\n",
      f);
  ASSERT_TRUE(items) << items.err().message;
  ASSERT_EQ(items->size(), 4u);
  EXPECT_EQ((*items)[0].answer, "18446744073709551616");
  EXPECT_EQ((*items)[1].answer, "1.0000000000000000001");
  EXPECT_EQ((*items)[2].answer, "-42");
  EXPECT_EQ((*items)[3].answer, "2.5e-3");
}

}  // namespace
}  // namespace adarl
