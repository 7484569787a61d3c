#include "models/arch/prompt_features.hpp"

#include <algorithm>
#include <string>

#include "models/arch/logprobs.hpp"

namespace adarl {

result<prompt_features> last_token_features(const std::vector<std::vector<int32_t>>& prompts,
                                            const hidden_fn& hidden, torch::Device device,
                                            int64_t pad, size_t batch) {
  prompt_features out;
  out.reserve(prompts.size());
  try {
    torch::NoGradGuard no_grad;
    for (size_t start = 0; start < prompts.size(); start += batch) {
      const std::vector<std::vector<int32_t>> rows(
          prompts.begin() + start, prompts.begin() + std::min(prompts.size(), start + batch));
      auto [tokens, mask] = left_pad(rows, pad);
      // Left padding puts every prompt's last token at the last position.
      auto h = hidden(tokens.to(device), mask.to(device)).select(1, -1);
      h = h.to(torch::kCPU, torch::kFloat32).contiguous();
      for (int64_t r = 0; r < h.size(0); ++r) {
        const float* p = h[r].data_ptr<float>();
        out.emplace_back(p, p + h.size(1));
      }
    }
  } catch (const std::exception& e) {
    return error{"prompt features: " + std::string(e.what()).substr(0, 300)};
  }
  return out;
}

}  // namespace adarl
