#include "models/weights/hf_policy.hpp"

#include <algorithm>

#include "models/arch/seeded_init.hpp"

namespace adarl {

result<hf_policy> build_hf_policy(const hf_policy_config& c, const torch::Device& device) {
  hf_policy p;
  hf_config config;
  if (!c.path.empty()) {
    auto read = read_hf_source(c.path);
    if (!read) return read.err();
    config = std::move(read->first);
    p.source = std::move(read->second);
  } else {
    auto parsed = parse_hf_config(c.config_json, "engine config.json");
    if (!parsed) return parsed.err();
    config = std::move(*parsed);
    p.source.config_json = c.config_json;
  }
  if (c.max_len < 2 || c.max_len > config.max_position_embeddings)
    return error{"model.max_len: expected 2 to the model's max_position_embeddings (" +
                 std::to_string(config.max_position_embeddings) + "), got " +
                 std::to_string(c.max_len)};
  p.model = seeded_init(c.init_seed, [&] { return hf_model(config, int64_t(c.max_len)); });
  if (!c.path.empty()) {
    auto dtype = load_hf_weights(p.model, c.path);
    if (!dtype) return dtype.err();
    p.source.dtype = *dtype;
  }
  p.model->to(device);
  return p;
}

}  // namespace adarl
