#include "experiments/score_job.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <istream>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/jsonl_text.hpp"
#include "models/arch/logprobs.hpp"
#include "models/device.hpp"
#include "models/weights/hf_policy.hpp"

namespace adarl {
namespace {

using nlohmann::json;

/// One line: the prompt and completion as ids.
struct score_line {
  std::vector<int32_t> prompt, completion;
};

/// The ids of `key` of `j` (a JSON array of integers in [0, vocab)); false with the
/// problem reported.
bool read_ids(const json& j, const char* key, int64_t vocab, uint32_t line,
              line_problems& p, std::vector<int32_t>& out) {
  const auto& v = j[key];
  if (!v.is_array()) {
    p.add(line, std::string("field \"") + key +
                    "\": expected an array of token ids, got " + shown_json(v));
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

/// One line's ids from its text fields; false with the problem reported.
bool read_text(const json& j, const hf_text_codec& codec, bool chat,
               const std::string& where, uint32_t line, line_problems& p, score_line& s) {
  const auto prompt = j["prompt"].get<std::string>();
  auto ids = chat ? codec.encode_prompt(prompt, where)
                  : codec.tokenizer().encode(prompt, /*add_special_tokens=*/true);
  auto completion = codec.tokenizer().encode(j["completion"].get<std::string>(), false);
  if (!ids || !completion) {
    p.add(line, (!ids ? ids.err() : completion.err()).message);
    return false;
  }
  s.prompt = std::move(*ids);
  s.completion = std::move(*completion);
  return true;
}

/// Every line of `in` as ids for a model of `vocab` tokens and `context` positions.
result<std::vector<score_line>> read_score_lines(std::istream& in,
                                                 const std::string& name,
                                                 const hf_text_codec& codec,
                                                 int64_t vocab, int64_t context,
                                                 bool chat) {
  line_problems p{name, 20, {}};
  std::vector<score_line> out;
  uint32_t line = 0;
  for (std::string text; !p.full() && std::getline(in, text);) {
    ++line;
    if (blank_line(text)) continue;
    const auto j = json_object_line(text, line, p);
    if (!j) continue;
    score_line s;
    bool ok = false;
    if (j->contains("prompt_ids") || j->contains("completion_ids")) {
      ok = read_ids(*j, "prompt_ids", vocab, line, p, s.prompt) &&
           read_ids(*j, "completion_ids", vocab, line, p, s.completion);
    } else if (j->contains("prompt") && (*j)["prompt"].is_string() &&
               j->contains("completion") && (*j)["completion"].is_string()) {
      ok = read_text(*j, codec, chat, name + ":" + std::to_string(line), line, p, s);
    } else {
      p.add(line,
            "expected {\"prompt_ids\": [...], \"completion_ids\": [...]} or "
            "{\"prompt\": text, \"completion\": text}");
    }
    if (!ok) continue;
    if (s.prompt.empty()) {
      p.add(line,
            "the prompt has no tokens: the first completion token needs one before it");
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

/// Scores `lines` `batch` at a time, calling `row` with each line's log-probs in order.
void score_batches(policy_model& model, const std::vector<score_line>& lines,
                   size_t batch,
                   const std::function<void(const std::vector<double>&)>& row,
                   score_totals& totals) {
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
      std::vector<double> values;
      for (size_t k = 0; k < completions[i - begin].size(); ++k)
        values.push_back(double(rows[int64_t(i - begin)][int64_t(k)]));
      for (double v : values) totals.logp_sum += v;
      totals.tokens += values.size();
      ++totals.lines;
      row(values);
    }
  }
}

}  // namespace

result<score_totals> score_lines(
    const score_request& request, std::istream& in, const std::string& name,
    const std::function<void(const std::vector<double>&)>& row) {
  if (request.batch == 0) return error{"batch: expected a positive number of lines"};
  auto device = parse_device(request.device);
  if (!device) return error{"device: " + device.err().message};
  auto codec = hf_text_codec::open(request.dir, request.text);
  if (!codec) return codec.err();
  auto config = read_hf_config(request.dir);
  if (!config) return config.err();
  auto lines = read_score_lines(in, name, **codec, config->vocab_size,
                                config->max_position_embeddings, request.chat);
  if (!lines) return lines.err();
  size_t longest = 2;
  for (const auto& l : *lines)
    longest = std::max(longest, l.prompt.size() + l.completion.size());
  hf_policy_config pc;
  pc.path = request.dir;
  pc.max_len = int32_t(longest);
  pc.device = request.device;
  auto policy = build_hf_policy(pc, *device);
  if (!policy) return policy.err();
  score_totals totals;
  totals.model_type = config->model_type;
  score_batches(*policy->model, *lines, request.batch, row, totals);
  return totals;
}

}  // namespace adarl
