// `adarl model score DIR`: the log-probs adarl's learner computes for completions under a
// Hugging Face checkpoint, one JSON array per input line (experiments/score_job.hpp does
// the work; this parses the flags and prints). Links LibTorch (adarl_torch_jobs).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "experiments/score_job.hpp"

namespace adarl {
namespace {

/// What `adarl model score` was given.
struct score_options {
  std::string dir, input, device = "cpu", chat_template = "auto", system_prompt = "auto";
  bool chat = false;
  uint32_t batch = 8;
};

int score(const score_options& o) {
  const std::string who = "adarl model score: ";
  auto choice = parse_chat_template_choice(o.chat_template);
  if (!choice) {
    std::cerr << who << "--chat-template: expected auto, none, chatml or llama3, got \""
              << o.chat_template << "\"\n";
    return 2;
  }
  score_request r;
  r.dir = o.dir;
  r.text.chat = *choice;
  r.text.system_prompt = o.system_prompt;
  r.chat = o.chat;
  r.device = o.device;
  r.batch = o.batch;
  const auto print = [](const std::vector<double>& row) {
    std::cout << nlohmann::json(row).dump() << "\n";
  };
  result<score_totals> totals = error{};
  if (o.input.empty() || o.input == "-") {
    totals = score_lines(r, std::cin, "stdin", print);
  } else {
    std::ifstream file(o.input);
    if (!file) {
      std::cerr << who << o.input << ": cannot open the file\n";
      return 2;
    }
    totals = score_lines(r, file, o.input, print);
  }
  if (!totals) {
    std::cerr << who << totals.err().message << "\n";
    return 2;
  }
  std::cout << std::flush;
  if (!std::cout) {
    std::cerr << who << "cannot write the output\n";
    return 1;
  }
  std::cerr << who << totals->lines << " lines, " << totals->tokens
            << " completion tokens";
  if (totals->tokens)
    std::cerr << ", mean log-prob " << totals->logp_sum / double(totals->tokens);
  std::cerr << " (" << totals->model_type << ", " << o.device << ")\n";
  return 0;
}

}  // namespace

void add_model_score_command(CLI::App& model, int& exit_code) {
  auto o = std::make_shared<score_options>();
  auto* s = model.add_subcommand(
      "score",
      "per-token log-probs of completions under a checkpoint (log-softmax of the "
      "raw logits, temperature 1), one JSON array per input line");
  s->add_option("DIR", o->dir,
                "the Hugging Face checkpoint directory (or a run's .../hf)")
      ->required();
  s->add_option(
      "--input", o->input,
      "JSONL of {\"prompt_ids\", \"completion_ids\"} or {\"prompt\", \"completion\"} "
      "(default stdin)");
  s->add_flag("--chat", o->chat, "text prompts are user turns: through the chat format");
  s->add_option("--chat-template", o->chat_template,
                "auto, none, chatml or llama3 (--chat)");
  s->add_option("--system-prompt", o->system_prompt,
                "auto, \"\" (none) or the text (--chat)");
  s->add_option("--device", o->device, "cpu or cuda:N");
  s->add_option("--batch", o->batch, "lines per forward pass (default 8)");
  s->callback([o, &exit_code] { exit_code = score(*o); });
}

}  // namespace adarl
