#include "experiments/sft_job.hpp"

#include "experiments/run_tasks.hpp"

#include <limits>
#include <ostream>

#include "models/weights/checkpoint.hpp"
#include "models/device.hpp"
#include "models/decode/sampler.hpp"
#include "models/train/sft.hpp"
#include "tasks/dataset.hpp"
#include "tasks/suites.hpp"
#include "tasks/verifier_registry.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

namespace {
// Reads an integer key into a signed or narrower field (config_map reads unsigned).
template <class T>
void get_int(config_map& m, const std::string& key, T& field, uint32_t min) {
  uint64_t v = static_cast<uint64_t>(field);
  m.get(key, v, min);
  if (v > static_cast<uint64_t>(std::numeric_limits<T>::max()))
    return m.fail(key, "expected an integer up to " +
                           std::to_string(std::numeric_limits<T>::max()));
  field = static_cast<T>(v);
}
}  // namespace

sft_job_config read_sft_config(config_map& root) {
  sft_job_config c;
  auto model = root.child("model");
  get_int(model, "d_model", c.model.d_model, 1);
  get_int(model, "n_layers", c.model.n_layers, 1);
  get_int(model, "n_heads", c.model.n_heads, 1);
  get_int(model, "d_ff", c.model.d_ff, 1);
  get_int(model, "max_len", c.model.max_len, 2);
  model.get("tied_output", c.model.tied_output);
  if (c.model.d_model % c.model.n_heads != 0)
    model.fail("n_heads", "expected a divisor of d_model");
  model.finish();
  auto s = root.child("sft");
  s.get("suite", c.suite);
  s.get("dataset", c.dataset);
  s.get("count", c.count, 1);
  s.get("seed", c.seed);
  s.get("difficulty_mix", c.difficulty_mix);
  get_int(s, "steps", c.steps, 1);
  get_int(s, "batch_size", c.batch_size, 1);
  s.get("lr", c.lr);
  if (c.lr <= 0) s.fail("lr", "expected a positive number");
  get_int(s, "warmup_steps", c.warmup_steps, 0);
  s.get("grad_clip", c.grad_clip);
  s.get("weight_decay", c.weight_decay);
  s.get("eval_count", c.eval_count);
  s.get("out", c.out);
  s.finish();
  root.get("device", c.device);
  get_int(root, "threads", c.threads, 1);
  root.finish();
  return c;
}

double sft_eval::overall() const {
  uint32_t n = 0, k = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    n += items[i];
    k += passed[i];
  }
  return n ? double(k) / n : 0.0;
}

namespace {

result<std::vector<task_item>> load_items(const sft_job_config& c, split part,
                                          uint32_t count, const verifier_registry& reg) {
  if (!c.items.empty() && part == split::train) return c.items;
  if (!c.dataset.empty()) return load_dataset(c.dataset, &reg);
  return generate_suite(c.suite, {c.seed, count, c.difficulty_mix, part});
}

// Prompt as the sampler sees it and the supervised completion.
sft_eval evaluate(transformer& model, const tokenizer& tok, const verifier_registry& reg,
                  const std::vector<task_item>& items, int32_t max_len) {
  sft_eval ev;
  ev.items.assign(6, 0);
  ev.passed.assign(6, 0);
  std::vector<sample_job> jobs;
  std::vector<const task_item*> kept;
  for (const auto& item : items) {
    auto e = sft_example_of(tok, item, max_len);
    if (!e) continue;
    jobs.push_back({e->prompt, jobs.size()});
    kept.push_back(&item);
  }
  sampling_params sp;
  sp.greedy = true;
  sp.max_new_tokens = max_len;
  for (size_t start = 0; start < jobs.size(); start += 64) {
    std::vector<sample_job> chunk(jobs.begin() + start,
                                  jobs.begin() + std::min(jobs.size(), start + 64));
    auto out = sample_batch(model, chunk, sp);
    for (size_t i = 0; i < out.size(); ++i) {
      const auto& item = *kept[start + i];
      const auto level = std::min<uint32_t>(item.difficulty, 5);
      ++ev.items[level];
      auto v = reg.find(item.verifier);
      if (v && (*v)->verify(item, tok.decode(out[i].tokens)).reward > 0) ++ev.passed[level];
    }
  }
  return ev;
}

}  // namespace

result<sft_report> run_sft_job(const sft_job_config& c, std::ostream& log,
                               const std::atomic<bool>* stop) {
  auto device = parse_device(c.device);
  if (!device) return device.err();
  at::set_num_threads(c.threads);
  auto tok = *tokenizer::from_charset(tokenizer::default_charset());
  auto reg = verifier_registry::with_builtins();
  auto train = load_items(c, split::train, c.count, reg);
  if (!train) return train.err();
  std::vector<sft_example> examples;
  for (const auto& item : *train) {
    auto e = sft_example_of(tok, item, c.model.max_len);
    if (!e) return e.err();
    examples.push_back(std::move(*e));
  }
  if (examples.empty()) return error{"sft: no training items"};

  torch::manual_seed(c.seed);
  model_config mc = c.model;
  mc.vocab_size = tok.size();
  transformer model(mc);
  model->to(*device);
  optimizer_config oc;
  oc.lr = c.lr;
  oc.warmup_steps = c.warmup_steps;
  oc.grad_clip = c.grad_clip;
  oc.weight_decay = c.weight_decay;
  policy_optimizer opt(model, oc);
  sft_config sc;
  sc.steps = c.steps;
  sc.batch_size = c.batch_size;
  sc.seed = c.seed;

  sft_report report;
  const std::vector<sft_example> probe(examples.begin(),
                                       examples.begin() + std::min<size_t>(256, examples.size()));
  report.loss_before = sft_loss(model, probe);
  log << "sft: " << examples.size() << " examples, " << mc.parameter_count()
      << " parameters, " << c.steps << " steps of " << c.batch_size << " on " << c.device
      << "\n";
  const auto losses = run_sft(
      model, opt, examples, sc,
      [&](const sft_progress& p) {
        log << "sft step " << p.step << "/" << c.steps << "  loss " << p.loss << "  grad "
            << p.grad_norm << "  tokens/s " << static_cast<int64_t>(p.tokens_per_s) << "\n"
            << std::flush;
      },
      stop);
  if (int64_t(losses.size()) < c.steps)
    return error{"stopped at step " + std::to_string(losses.size()) + " of " +
                 std::to_string(c.steps) + " (no checkpoint written)"};
  report.loss_after = sft_loss(model, probe);
  auto saved = save_checkpoint(c.out, model, &opt, {c.steps, mc, tok.charset(), /*model_hash=*/{}});
  if (!saved) return saved.err();
  report.checkpoint = c.out;

  if (c.eval_count > 0 && c.dataset.empty() && c.items.empty()) {
    auto held = generate_suite(c.suite, {c.seed, c.eval_count, c.difficulty_mix,
                                         split::held_out});
    if (!held) return held.err();
    model->eval();
    report.eval = evaluate(model, tok, reg, *held, mc.max_len);
  }
  return report;
}

}  // namespace adarl
