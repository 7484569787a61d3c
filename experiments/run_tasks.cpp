#include "experiments/run_tasks.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>

#include "base/random_keys.hpp"
#include "pipelines/task_source.hpp"
#include "tasks/suites.hpp"
#include "tokenizers/bpe/hf_text.hpp"

namespace adarl {

namespace {
// Completions need room after the prompt: at least this many positions.
constexpr int32_t min_answer_room = 8;
}  // namespace

result<std::shared_ptr<const text_codec>> run_codec(const pipeline_config& c) {
  if (kind_traits(c.policy.kind).model_directory()) {
    hf_text_options o;
    o.chat = parse_chat_template_choice(c.policy.chat_template)
                 .value_or(chat_template_choice::automatic);
    o.system_prompt = c.policy.system_prompt;
    auto codec = hf_text_codec::open(c.policy.hf_path, o);
    if (!codec) return error{"model.path: " + codec.err().message};
    return std::shared_ptr<const text_codec>(std::move(*codec));
  }
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  return std::shared_ptr<const text_codec>(std::make_shared<const tokenizer>(std::move(*tok)));
}

result<run_items> load_run_items(const pipeline_config& c, uint32_t train_count,
                                 uint32_t held_out_count) {
  pipeline_config counted = c;
  counted.tasks.train = train_count;
  if (c.tasks.dataset.empty()) {
    counted.tasks.held_out = held_out_count;
    return config_tasks(counted);
  }
  // The dataset's split point is the config's own held-out count: a selection pool or
  // a warm start asking for other counts must not move items across it.
  auto items = config_tasks(counted);
  if (items && items->held_out.size() > held_out_count) items->held_out.resize(held_out_count);
  return items;
}

std::vector<std::string> pool_shortfall(const pipeline_config& c, const run_items& items,
                           uint32_t train_count, uint32_t held_out_count,
                           const std::string& train_key, const std::string& held_out_key) {
  const std::string source =
      c.tasks.dataset.empty() ? "suite " + c.tasks.suite : c.tasks.dataset;
  std::vector<std::string> out;
  const auto part = [&](size_t got, uint32_t asked, const std::string& key, const char* what) {
    if (got >= asked) return;
    out.push_back(key + " asks " + std::to_string(asked) + " candidates; " + source + " has " +
                  std::to_string(got) + " distinct " + what +
                  (c.tasks.dataset.empty() ? " prompts at tasks.difficulty_mix" : " items"));
  };
  part(items.train.size(), train_count, train_key, "training");
  part(items.held_out.size(), held_out_count, held_out_key, "held-out");
  return out;
}

namespace {

/// sft_items with the dataset items' origins (FILE:LINE) for messages.
result<task_set> sft_task_set(const pipeline_config& c) {
  if (!c.tasks.dataset.empty()) return load_run_items(c, std::numeric_limits<uint32_t>::max(), 0);
  auto items = generate_suite(c.tasks.suite,
                              {c.seed, c.policy.sft_count, c.tasks.difficulty_mix, split::train});
  if (!items) return items.err();
  task_set set;
  set.train = std::move(*items);
  return set;
}

}  // namespace

result<std::vector<task_item>> sft_items(const pipeline_config& c) {
  auto set = sft_task_set(c);
  if (!set) return set.err();
  return std::move(set->train);
}

result<prompt_table_ptr> make_run_prompts(const pipeline_config& c,
                                          const std::vector<task_item>& train,
                                          const std::vector<task_item>& held,
                                          const task_set* origin) {
  if (train.empty()) return error{"tasks: no training prompts"};
  auto codec = run_codec(c);
  if (!codec) return codec.err();
  const auto format = parse_prompt_format(c.tasks.prompt_format).value_or(prompt_format::plain);
  // A step draws distinct prompts: a dataset smaller than a step is a config error
  // (a suite's is caught when the config is read).
  if (train.size() < c.tracker.prompts_per_step)
    return error{"tracker.prompts_per_step: " + std::to_string(c.tracker.prompts_per_step) +
                 " is more than the " + std::to_string(train.size()) +
                 " training prompts (lower it, or give the run more items)"};
  item_place place;
  if (origin) {
    const auto column = c.tasks.fields.find("prompt");
    const std::string mapped = column == c.tasks.fields.end() || column->second == "prompt"
                                   ? std::string()
                                   : "column \"" + column->second + "\" (mapped to prompt): ";
    place = [origin, mapped](const task_item& item) { return item_origin(*origin, item) + mapped; };
  }
  auto table = build_prompt_table(train, held, std::move(*codec), format, place);
  if (!table) return table.err();
  if (kind_traits(c.policy.kind).trains_model)
    for (const auto& r : table->rows)
      if (int32_t(r.tokens.size()) + min_answer_room > c.policy.model.max_len)
        return error{(origin ? item_origin(*origin, r.item) : std::string()) + "task \"" +
                     r.item.id + "\": its prompt takes " +
                     std::to_string(r.tokens.size()) + " tokens, too many for model.max_len " +
                     std::to_string(c.policy.model.max_len)};
  return std::make_shared<const prompt_table>(std::move(*table));
}

result<prompt_table_ptr> load_run_prompts(const pipeline_config& c) {
  auto items = load_run_items(c, c.tasks.train, c.tasks.held_out);
  if (!items) return items.err();
  return make_run_prompts(c, items->train, items->held_out, &*items);
}

result<sft_example> sft_example_of(const tokenizer& tok, const task_item& item,
                                   int32_t max_len) {
  auto p = tok.encode(item.prompt, "item \"" + item.id + "\" prompt");
  if (!p) return p.err();
  const bool worked = !item.solution.empty();  // the derivation, else the answer alone
  auto a = tok.encode(worked ? item.solution : item.answer,
                      "item \"" + item.id + (worked ? "\" solution" : "\" answer"));
  if (!a) return a.err();
  sft_example e;
  e.prompt.push_back(tokenizer::bos);
  e.prompt.insert(e.prompt.end(), p->begin(), p->end());
  e.prompt.push_back(tokenizer::sep);
  e.completion = std::move(*a);
  e.completion.push_back(tokenizer::eos);
  const auto len = e.prompt.size() + e.completion.size();
  if (len > static_cast<size_t>(max_len))
    return error{"item \"" + item.id + "\": " + std::to_string(len) +
                 " tokens do not fit model.max_len " + std::to_string(max_len)};
  return e;
}

result<bool> check_sft_items(const pipeline_config& c) {
  if (!kind_traits(c.policy.kind).sft_warm_start() || !c.policy.base_checkpoint.empty() ||
      c.policy.sft_steps == 0)
    return true;
  auto set = sft_task_set(c);
  if (!set) return set.err();
  auto tok = tokenizer::from_charset(tokenizer::default_charset());
  if (!tok) return tok.err();
  for (const auto& item : set->train) {
    const std::string where = item_origin(*set, item) + "SFT item \"" + item.id + "\"";
    auto e = sft_example_of(*tok, item, std::numeric_limits<int32_t>::max());
    if (!e) return error{where + ": " + e.err().message};
    const size_t len = e->prompt.size() + e->completion.size();
    if (len > size_t(c.policy.model.max_len))
      return error{where + ": prompt and " +
                   (item.solution.empty() ? "answer" : "solution") + " take " +
                   std::to_string(len) +
                   " tokens, more than model.max_len " + std::to_string(c.policy.model.max_len) +
                   " (raise it, or shorten or drop the item)"};
  }
  return true;
}

uint64_t items_hash(const std::vector<task_item>& items) {
  uint64_t h = 0x6974656d73ull;  // "items"
  for (const auto& item : items)
    for (const std::string* text : {&item.id, &item.prompt, &item.answer, &item.verifier,
                                    &item.tests}) {
      h = mix_keys(h, text->size());  // the length first: text moved between fields shows
      for (char ch : *text) h = mix_keys(h, uint64_t(uint8_t(ch)));
    }
  // The worked solutions the warm start trains on; mixed in only where there are any,
  // so that the keys of sets without them stay what they were.
  for (const auto& item : items)
    if (!item.solution.empty()) {
      h = mix_keys(h, 0x736f6cull);  // "sol"
      h = mix_keys(h, item.solution.size());
      for (char ch : item.solution) h = mix_keys(h, uint64_t(uint8_t(ch)));
    }
  return h;
}

std::string sft_cache_key(const pipeline_config& c, const std::vector<task_item>& items) {
  std::ostringstream s;
  const auto& m = c.policy.model;
  const auto& p = c.policy;
  s << m.d_model << ' ' << m.n_layers << ' ' << m.n_heads << ' ' << m.d_ff << ' ' << m.max_len
    << ' ' << m.tied_output << '|' << c.tasks.suite << '|' << c.tasks.dataset << '|';
  // A dataset's training items depend on where it is split (load_run_items).
  if (!c.tasks.dataset.empty()) s << "held_out=" << c.tasks.held_out << '|';
  for (double w : c.tasks.difficulty_mix) s << w << ' ';
  s << '|' << p.sft_steps << ' ' << p.sft_batch_size << ' ' << p.sft_lr << ' ' << p.sft_count
    << ' ' << c.seed;
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (char ch : s.str()) h = mix_keys(h, uint64_t(uint8_t(ch)));
  // An edited dataset (same path, same counts) must not reuse a warm start trained on
  // its earlier lines.
  h = mix_keys(h, items_hash(items));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace adarl
