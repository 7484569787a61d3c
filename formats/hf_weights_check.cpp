#include "formats/hf_weights_check.hpp"

#include <vector>

namespace adarl {

std::string hf_weights_problem(const safetensors_checkpoint& ckpt, const hf_config& c,
                               hf_weights_tally* tally) {
  std::string problem;
  std::map<std::string, std::vector<int64_t>> want;
  for (auto& t : expected_hf_tensors(c)) want[t.name] = t.shape;
  for (const auto& name : ckpt.names()) {
    auto view = ckpt.tensor(name);
    if (!view) return view.err().message;
    if (tally) {
      tally->dtypes[std::string(dtype_name(view->dtype))] += 1;
      tally->numel += view->numel();
    }
    const bool skipped = name.find("rotary_emb.inv_freq") != std::string::npos ||
                         (c.tie_word_embeddings && name == "lm_head.weight");
    if (skipped) continue;
    auto it = want.find(name);
    if (it == want.end()) {
      if (problem.empty()) problem = "tensor " + name + " is not part of the architecture";
      continue;
    }
    if (view->shape != it->second && problem.empty())
      problem = "tensor " + name + " has shape " + shape_string(view->shape) + ", expected " +
                shape_string(it->second) + " from config.json";
    if (!converts_to_float32(view->dtype) && problem.empty())
      problem = "tensor " + name + " has dtype " + std::string(dtype_name(view->dtype)) +
                " (F32, BF16 and F16 are read)";
    want.erase(it);
  }
  if (problem.empty() && !want.empty()) problem = "tensor " + want.begin()->first + " is missing";
  return problem;
}

}  // namespace adarl
