#include "algorithms/visit_skips.hpp"

#include <algorithm>
#include <cmath>

namespace adarl {

bool explored_visit(uint64_t visit_key, double explore) {
  return double(visit_key >> 11) * 0x1p-53 < explore;
}

void replacement_draws::start(double factor, size_t prompts, bool on) {
  wanted_ = 0;
  const double extra = std::ceil(factor * double(prompts));
  left_ = on ? uint32_t(std::min(extra, 1e9)) : 0;
}

void replacement_draws::skipped(decisions& out) {
  if (left_ == 0) return;
  --left_;
  ++wanted_;
  ++out.prompts_wanted;
}

replacement_draws::take replacement_draws::begin(size_t offered) {
  if (wanted_ == 0) return {};
  const take t{std::min<size_t>(offered, wanted_), wanted_};
  wanted_ = 0;
  return t;
}

void replacement_draws::done(const take& t, decisions& out) {
  if (t.given >= t.asked) return;
  left_ = 0;
  out.prompts_wanted -= std::min(out.prompts_wanted, wanted_);
  wanted_ = 0;
}

}  // namespace adarl
