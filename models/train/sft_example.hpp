#pragma once
// One supervised pair of the warm start, tokenized (std only: the warm start's length
// checks run without LibTorch).

#include <cstdint>
#include <vector>

namespace adarl {

/// One supervised pair, already tokenized: `prompt` as the sampler will see it
/// (begin token, text, separator) and `completion` the answer followed by the end token.
struct sft_example {
  std::vector<int32_t> prompt;
  std::vector<int32_t> completion;
};

}  // namespace adarl
