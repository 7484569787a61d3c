#include "engines/engine_spec.hpp"

#include <nlohmann/json.hpp>

namespace adarl {

using nlohmann::json;

std::string encode_engine_spec(const engine_spec& s) {
  const engine_kind_traits& kind = kind_traits(s.kind);
  const bool sim = !kind.trains_model;
  const bool hf = kind.model_directory();
  json j{{"kind", kind.name},
         {"capacity", s.capacity},
         {"sampling",
          {{"temperature", s.sampling.temperature},
           {"top_p", s.sampling.top_p},
           {"max_new_tokens", s.sampling.max_new_tokens},
           {"greedy", s.sampling.greedy},
           {"batch_invariant", s.sampling.batch_invariant}}}};
  if (sim) {
    const auto& m = s.world.model;
    j["world"] = {{"model",
                   {{"mean_logit", m.mean_logit},
                    {"sd_logit", m.sd_logit},
                    {"optimizer", sim_optimizer_name(m.optimizer)},
                    {"shared_lr", m.shared_lr},
                    {"prompt_lr", m.prompt_lr},
                    {"adam_shared_lr", m.adam_shared_lr},
                    {"adam_prompt_lr", m.adam_prompt_lr}}},
                  {"answers", s.world.answers},
                  {"train", s.world.train},
                  {"seed", s.world.seed},
                  {"wrong_answer", s.world.wrong_answer}};
    j["latency"] = {{"step_seconds", s.latency.step_seconds},
                    {"min_steps", s.latency.min_steps},
                    {"tail", s.latency.tail},
                    {"max_steps", s.latency.max_steps}};
  } else if (hf) {
    j["hf_config"] = s.hf_config;
    j["max_len"] = s.max_len;
    j["end_ids"] = s.end_ids;
    j["init_seed"] = s.init_seed;
  } else {
    const auto& m = s.model;
    j["model"] = {{"vocab_size", m.vocab_size}, {"d_model", m.d_model},
                  {"n_layers", m.n_layers},     {"n_heads", m.n_heads},
                  {"d_ff", m.d_ff},             {"max_len", m.max_len},
                  {"tied_output", m.tied_output}};
    j["charset"] = s.charset;
    j["init_seed"] = s.init_seed;
  }
  return j.dump();
}

result<engine_spec> decode_engine_spec(std::string_view text) {
  engine_spec s;
  try {
    const json j = json::parse(text);
    const std::string name = j.at("kind");
    auto parsed = parse_policy_kind(name);
    if (!parsed) return error{"engine spec: kind: " + parsed.err().message};
    s.kind = *parsed;
    const engine_kind_traits& kind = kind_traits(s.kind);
    s.capacity = j.at("capacity");
    const auto& p = j.at("sampling");
    s.sampling.temperature = p.at("temperature");
    s.sampling.top_p = p.at("top_p");
    s.sampling.max_new_tokens = p.at("max_new_tokens");
    s.sampling.greedy = p.at("greedy");
    s.sampling.batch_invariant = p.at("batch_invariant");
    if (!kind.trains_model) {
      const auto& w = j.at("world");
      const auto& m = w.at("model");
      auto& c = s.world.model;
      c.mean_logit = m.at("mean_logit");
      c.sd_logit = m.at("sd_logit");
      const auto optimizer = parse_sim_optimizer(m.at("optimizer").get<std::string>());
      if (!optimizer) return error{"engine spec: world.model.optimizer: expected adam or sgd"};
      c.optimizer = *optimizer;
      c.shared_lr = m.at("shared_lr");
      c.prompt_lr = m.at("prompt_lr");
      c.adam_shared_lr = m.at("adam_shared_lr");
      c.adam_prompt_lr = m.at("adam_prompt_lr");
      s.world.answers = w.at("answers").get<std::vector<std::string>>();
      s.world.train = w.at("train");
      s.world.seed = w.at("seed");
      s.world.wrong_answer = w.at("wrong_answer");
      const auto& l = j.at("latency");
      s.latency.step_seconds = l.at("step_seconds");
      s.latency.min_steps = l.at("min_steps");
      s.latency.tail = l.at("tail");
      s.latency.max_steps = l.at("max_steps");
      s.latency.capacity = s.capacity;
    } else if (kind.model_directory()) {
      s.hf_config = j.at("hf_config").get<std::string>();
      s.max_len = j.at("max_len");
      s.end_ids = j.at("end_ids").get<std::vector<int32_t>>();
      s.init_seed = j.at("init_seed");
      if (s.end_ids.empty()) return error{"engine spec: end_ids: expected at least one id"};
      if (s.max_len < 2) return error{"engine spec: max_len: expected at least 2"};
    } else {
      const auto& m = j.at("model");
      s.model.vocab_size = m.at("vocab_size");
      s.model.d_model = m.at("d_model");
      s.model.n_layers = m.at("n_layers");
      s.model.n_heads = m.at("n_heads");
      s.model.d_ff = m.at("d_ff");
      s.model.max_len = m.at("max_len");
      s.model.tied_output = m.at("tied_output");
      s.charset = j.at("charset");
      s.init_seed = j.at("init_seed");
      if (auto problems = s.model.problems(); !problems.empty())
        return error{"engine spec: model." + problems.front()};
    }
  } catch (const json::exception& e) {
    return error{std::string("engine spec: ") + e.what()};
  }
  if (s.capacity == 0 || s.capacity > 65536)
    return error{"engine spec: capacity: expected an integer in [1, 65536]"};
  return s;
}

}  // namespace adarl
