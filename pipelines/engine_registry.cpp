#include "pipelines/engine_registry.hpp"

#include <array>
#include <mutex>
#include <sstream>

#include "engines/sim/sim_engines.hpp"
#include "formats/hf_config.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

namespace {

// What each kind puts in its engine spec, and what identifies its policy without a base
// checkpoint: data of the kind, needing no engine code.

void transformer_spec(const pipeline_config& c, const prompt_table&, engine_spec& s) {
  s.model = c.policy.model;
  s.charset = tokenizer::default_charset();
  s.model.vocab_size = int32_t(s.charset.size()) + tokenizer::num_special;
  s.init_seed = c.seed;
}

void simulated_spec(const pipeline_config& c, const prompt_table& prompts, engine_spec& s) {
  s.world.model = c.policy.sim;
  s.world.train = prompts.train;
  s.world.seed = c.seed;
  for (const auto& r : prompts.rows) s.world.answers.push_back(r.item.answer);
  s.latency = c.actors.sim_latency;
  s.latency.capacity = s.capacity;
}

void hf_spec(const pipeline_config& c, const prompt_table& prompts, engine_spec& s) {
  // Validated with the config; unreadable now, the worker reports the empty text.
  if (auto text = read_text_file(c.policy.hf_path + "/config.json")) s.hf_config = *text;
  s.max_len = c.policy.model.max_len;
  if (prompts.codec) s.end_ids = prompts.codec->end_ids();
  s.init_seed = c.seed;
}

std::string no_fingerprint(const policy_section&) { return ""; }

std::string simulated_fingerprint(const policy_section& p) {
  std::ostringstream s;
  s << p.sim.mean_logit << ' ' << p.sim.sd_logit;
  return s.str();
}

std::string hf_fingerprint(const policy_section& p) { return p.hf_path; }
// The server's own sampling stream differs from the LibTorch decoder's: a selection made
// through it is its own.
std::string server_fingerprint(const policy_section& p) { return "server:" + p.hf_path; }

struct kind_data {
  policy_kind kind;
  void (*spec)(const pipeline_config&, const prompt_table&, engine_spec&);
  std::string (*fingerprint)(const policy_section&);
};

constexpr std::array<kind_data, engine_kinds.size()> kind_table{{
    {policy_kind::transformer, &transformer_spec, &no_fingerprint},
    {policy_kind::simulated, &simulated_spec, &simulated_fingerprint},
    {policy_kind::hf, &hf_spec, &hf_fingerprint},
    {policy_kind::server, &hf_spec, &server_fingerprint},
}};

static_assert(rows_in_kind_order(kind_table),
              "kind_table lists the kinds in the order of the enum");

// The simulated kind's engines: built in (libadarl needs no LibTorch to run them).
engine_hooks simulated_hooks() {
  engine_hooks h;
  h.engines = [](const engine_request& r) -> result<engine_factories> {
    if (!r.prompts) return error{"model.kind simulated: its engines need the run's prompts"};
    return sim_factories(*r.config, r.prompts);
  };
  h.generator = [](const engine_spec& spec, const std::string&, int32_t) {
    return sim_engine_of(spec);
  };
  return h;
}

struct registry {
  std::mutex mutex;
  std::array<engine_hooks, engine_kinds.size()> hooks;
  registry() { hooks[size_t(policy_kind::simulated)] = simulated_hooks(); }
};

registry& the_registry() {
  static registry r;
  return r;
}

engine_hooks hooks_of(policy_kind kind) {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  return r.hooks.at(size_t(kind));
}

error unregistered(policy_kind kind, const std::string& what) {
  return error{"model.kind " + std::string(policy_kind_name(kind)) + ": this program has no " +
               what + " for it (the LibTorch kinds are registered by "
                      "adarl::register_torch_engines(), experiments/run_engines.hpp)"};
}

}  // namespace

void register_engines(policy_kind kind, engine_hooks hooks) {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  r.hooks.at(size_t(kind)) = std::move(hooks);
}

result<engine_factories> engines_for(const engine_request& request) {
  const policy_kind kind = request.config->policy.kind;
  auto h = hooks_of(kind);
  if (!h.engines) return unregistered(kind, "engines");
  return h.engines(request);
}

result<std::unique_ptr<generation_engine>> generator_for_spec(const engine_spec& spec,
                                                              const std::string& device,
                                                              int32_t threads) {
  auto h = hooks_of(spec.kind);
  if (!h.generator) return unregistered(spec.kind, "generation engine");
  return h.generator(spec, device, threads);
}

result<bool> check_replicable(policy_kind kind) {
  if (kind_traits(kind).trains_model) return true;
  return error{"model.kind " + std::string(policy_kind_name(kind)) +
               " has no learner to replicate"};
}

result<uint64_t> serve_learner_rank(const pipeline_config& c, uint32_t rank, int32_t threads,
                                    const std::atomic<bool>* stop) {
  const policy_kind kind = c.policy.kind;
  if (auto ok = check_replicable(kind); !ok) return ok.err();
  auto h = hooks_of(kind);
  if (!h.learner_rank) return unregistered(kind, "learner ranks");
  return h.learner_rank(c, rank, threads, stop);
}

engine_spec run_engine_spec(const pipeline_config& c, const prompt_table& prompts) {
  engine_spec s;
  s.kind = c.policy.kind;
  s.capacity = c.actors.generator_capacity;
  s.sampling = c.sampling;
  kind_table.at(size_t(s.kind)).spec(c, prompts, s);
  return s;
}

std::string policy_fingerprint(const policy_section& policy) {
  return kind_table.at(size_t(policy.kind)).fingerprint(policy);
}

}  // namespace adarl
