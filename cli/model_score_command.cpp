// `adarl model score DIR`: the log-probs adarl's learner computes for completions under a
// Hugging Face checkpoint (models/decode/sampler.hpp: score_completions, temperature 1),
// one JSON array per input line, so that a user can hold adarl's numbers against another
// implementation's. Links LibTorch (adarl_torch_jobs).
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/jsonl_text.hpp"
#include "cli/commands.hpp"
#include "models/device.hpp"
#include "models/arch/logprobs.hpp"
#include "models/weights/hf_policy.hpp"
#include "tokenizers/bpe/hf_text.hpp"

namespace adarl {
namespace {

using nlohmann::json;

/// What `adarl model score` was given.
struct score_options {
  std::string dir, input, device = "cpu", chat_template = "auto", system_prompt = "auto";
  bool chat = false;
  uint32_t batch = 8;
};

/// One line: the prompt and completion as ids.
struct score_line {
  std::vector<int32_t> prompt, completion;
};

/// The ids of `key` of `j` (a JSON array of integers in [0, vocab)); false with the
/// problem reported.
bool read_ids(const json& j, const char* key, int64_t vocab, uint32_t line, line_problems& p,
              std::vector<int32_t>& out) {
  const auto& v = j[key];
  if (!v.is_array()) {
    p.add(line, std::string("field \"") + key + "\": expected an array of token ids, got " +
                    shown_json(v));
    return false;
  }
  for (const auto& x : v) {
    if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() >= vocab) {
      p.add(line, std::string("field \"") + key + "\": expected ids in [0, " +
                      std::to_string(vocab) + "), got " + shown_json(x));
      return false;
    }
    out.push_back(x.get<int32_t>());
  }
  return true;
}

/// Every line of `in` as ids: {"prompt_ids", "completion_ids"} or {"prompt",
/// "completion"} (text: the prompt through the chat format with --chat, else the
/// tokenizer with its special tokens; the completion without them).
result<std::vector<score_line>> read_score_lines(std::istream& in, const std::string& name,
                                                 const hf_text_codec& codec, int64_t vocab,
                                                 int64_t context, bool chat) {
  line_problems p{name, 20, {}};
  std::vector<score_line> out;
  uint32_t line = 0;
  for (std::string text; !p.full() && std::getline(in, text);) {
    ++line;
    if (blank_line(text)) continue;
    const auto j = json_object_line(text, line, p);
    if (!j) continue;
    score_line s;
    bool ok = true;
    if (j->contains("prompt_ids") || j->contains("completion_ids")) {
      ok = read_ids(*j, "prompt_ids", vocab, line, p, s.prompt) &&
           read_ids(*j, "completion_ids", vocab, line, p, s.completion);
    } else if (j->contains("prompt") && (*j)["prompt"].is_string() &&
               j->contains("completion") && (*j)["completion"].is_string()) {
      const std::string where = name + ":" + std::to_string(line);
      const auto prompt = (*j)["prompt"].get<std::string>();
      auto ids = chat ? codec.encode_prompt(prompt, where)
                      : codec.tokenizer().encode(prompt, /*add_special_tokens=*/true);
      auto completion =
          codec.tokenizer().encode((*j)["completion"].get<std::string>(), false);
      if (!ids || !completion) {
        p.add(line, (!ids ? ids.err() : completion.err()).message);
        continue;
      }
      s.prompt = std::move(*ids);
      s.completion = std::move(*completion);
    } else {
      p.add(line, "expected {\"prompt_ids\": [...], \"completion_ids\": [...]} or "
                  "{\"prompt\": text, \"completion\": text}");
      continue;
    }
    if (!ok) continue;
    if (s.prompt.empty()) {
      p.add(line, "the prompt has no tokens: the first completion token needs one before it");
      continue;
    }
    if (int64_t(s.prompt.size() + s.completion.size()) > context) {
      p.add(line, std::to_string(s.prompt.size() + s.completion.size()) +
                      " tokens, more than the model's max_position_embeddings " +
                      std::to_string(context));
      continue;
    }
    out.push_back(std::move(s));
  }
  if (in.bad()) p.lines.push_back(name + ": read error");
  if (!p.lines.empty()) return p.joined();
  return out;
}

/// The lines of --input (a file; stdin for "" or "-"), tokenized for the model of
/// `config`; an error names the file (and the line).
result<std::vector<score_line>> read_input(const score_options& o, const hf_text_codec& codec,
                                           const hf_config& config) {
  if (o.input.empty() || o.input == "-")
    return read_score_lines(std::cin, "stdin", codec, config.vocab_size,
                            config.max_position_embeddings, o.chat);
  std::ifstream file(o.input);
  if (!file) return error{"adarl model score: " + o.input + ": cannot open the file"};
  return read_score_lines(file, o.input, codec, config.vocab_size,
                          config.max_position_embeddings, o.chat);
}

/// Scores the lines `batch` at a time and prints each line's token log-probs as one JSON
/// array; adds the completion tokens and the sum of their log-probs.
void print_scores(policy_model& model, const std::vector<score_line>& lines, size_t batch,
                  size_t& tokens, double& total) {
  c10::InferenceMode guard;
  for (size_t begin = 0; begin < lines.size(); begin += batch) {
    const size_t end = std::min(lines.size(), begin + batch);
    std::vector<std::vector<int32_t>> prompts, completions;
    for (size_t i = begin; i < end; ++i) {
      prompts.push_back(lines[i].prompt);
      completions.push_back(lines[i].completion);
    }
    const auto scores = score_completions(model, prompts, completions, 1.f, 0);
    const auto logp = scores.logp.to(torch::kCPU).to(torch::kFloat).contiguous();
    const auto rows = logp.accessor<float, 2>();
    for (size_t i = begin; i < end; ++i) {
      json row = json::array();
      for (size_t k = 0; k < completions[i - begin].size(); ++k) {
        const float v = rows[int64_t(i - begin)][int64_t(k)];
        row.push_back(double(v));
        total += v;
      }
      tokens += completions[i - begin].size();
      std::cout << row.dump() << "\n";
    }
  }
  std::cout << std::flush;
}

int score(const score_options& o) {
  const std::string who = "adarl model score: ";
  auto choice = parse_chat_template_choice(o.chat_template);
  if (!choice) {
    std::cerr << who << "--chat-template: expected auto, none, chatml or llama3, got \""
              << o.chat_template << "\"\n";
    return 2;
  }
  auto device = parse_device(o.device);
  if (!device) {
    std::cerr << who << "--device: " << device.err().message << "\n";
    return 2;
  }
  if (o.batch == 0) {
    std::cerr << who << "--batch: expected a positive number of lines\n";
    return 2;
  }
  hf_text_options t;
  t.chat = *choice;
  t.system_prompt = o.system_prompt;
  auto codec = hf_text_codec::open(o.dir, t);
  if (!codec) {
    std::cerr << who << codec.err().message << "\n";
    return 2;
  }
  auto config = read_hf_config(o.dir);
  if (!config) {
    std::cerr << who << config.err().message << "\n";
    return 2;
  }
  auto lines = read_input(o, **codec, *config);
  if (!lines) {
    std::cerr << lines.err().message << "\n";
    return 2;
  }
  size_t longest = 2;
  for (const auto& l : *lines) longest = std::max(longest, l.prompt.size() + l.completion.size());
  hf_policy_config pc;
  pc.path = o.dir;
  pc.max_len = int32_t(longest);
  pc.device = o.device;
  auto policy = build_hf_policy(pc, *device);
  if (!policy) {
    std::cerr << who << policy.err().message << "\n";
    return 2;
  }
  size_t tokens = 0;
  double total = 0;
  print_scores(*policy->model, *lines, o.batch, tokens, total);
  if (!std::cout) {
    std::cerr << who << "cannot write the output\n";
    return 1;
  }
  std::cerr << who << lines->size() << " lines, " << tokens << " completion tokens";
  if (tokens) std::cerr << ", mean log-prob " << total / double(tokens);
  std::cerr << " (" << config->model_type << ", " << o.device << ")\n";
  return 0;
}

}  // namespace

void add_model_score_command(CLI::App& model, int& exit_code) {
  auto o = std::make_shared<score_options>();
  auto* s = model.add_subcommand(
      "score", "per-token log-probs of completions under a checkpoint (log-softmax of the "
               "raw logits, temperature 1), one JSON array per input line");
  s->add_option("DIR", o->dir, "the Hugging Face checkpoint directory (or a run's .../hf)")
      ->required();
  s->add_option("--input", o->input,
                "JSONL of {\"prompt_ids\", \"completion_ids\"} or {\"prompt\", \"completion\"} "
                "(default stdin)");
  s->add_flag("--chat", o->chat, "text prompts are user turns: through the chat format");
  s->add_option("--chat-template", o->chat_template, "auto, none, chatml or llama3 (--chat)");
  s->add_option("--system-prompt", o->system_prompt, "auto, \"\" (none) or the text (--chat)");
  s->add_option("--device", o->device, "cpu or cuda:N");
  s->add_option("--batch", o->batch, "lines per forward pass (default 8)");
  s->callback([o, &exit_code] { exit_code = score(*o); });
}

}  // namespace adarl
