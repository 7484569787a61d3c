#include "models/decode/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

#include "models/decode/decoder.hpp"
#include "tokenizers/tokenizer.hpp"

namespace adarl {

int32_t draw_token(std::vector<float> probs, float top_p, double u) {
  std::vector<int32_t> order(probs.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable, so equal probabilities keep id order and the draw is reproducible.
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return probs[a] > probs[b]; });
  double kept = 0;
  size_t n = 0;
  while (n < order.size() && (n == 0 || kept < top_p)) kept += probs[order[n++]];
  double target = u * kept, acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc += probs[order[i]];
    if (target < acc) return order[i];
  }
  return order[n - 1];
}

namespace {

// Sorts non-negative floats in decreasing order: the array std::sort with greater<>
// gives, by an LSD radix sort of their bit patterns (which order as the values do for
// x >= 0), three passes of 11 bits. For vocabularies of 150k ids it is about 10x faster.
void sort_decreasing(std::vector<float>& v, std::vector<uint32_t>& keys,
                     std::vector<uint32_t>& spare) {
  const size_t n = v.size();
  keys.resize(n);
  spare.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], 4);
    keys[i] = ~bits;  // increasing complements: decreasing values
  }
  for (int shift = 0; shift < 33; shift += 11) {
    size_t count[2049] = {};
    for (uint32_t k : keys) ++count[((k >> shift) & 2047) + 1];
    for (size_t b = 1; b < 2049; ++b) count[b] += count[b - 1];
    for (uint32_t k : keys) spare[count[(k >> shift) & 2047]++] = k;
    keys.swap(spare);
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = ~keys[i];
    std::memcpy(&v[i], &bits, 4);
  }
}

}  // namespace

int32_t token_drawer::draw(const float* logp, int32_t v, float top_p, double u) {
  probs_.resize(size_t(v));
  for (int32_t k = 0; k < v; ++k) probs_[k] = std::exp(logp[k]);
  sorted_.assign(probs_.begin(), probs_.end());
  if (v >= 4096)
    sort_decreasing(sorted_, keys_, spare_);
  else
    std::sort(sorted_.begin(), sorted_.end(), std::greater<float>());
  // The same sums in the same order as draw_token, so the same rounding.
  double kept = 0;
  size_t n = 0;
  while (n < sorted_.size() && (n == 0 || kept < top_p)) kept += sorted_[n++];
  const double target = u * kept;
  double acc = 0;
  size_t at = n - 1;
  for (size_t i = 0; i < n; ++i) {
    acc += sorted_[i];
    if (target < acc) {
      at = i;
      break;
    }
  }
  // The drawn value may be shared by several ids: draw_token's stable sort puts them in
  // id order, so pick the (rank among equals)-th id holding it.
  const float value = sorted_[at];
  size_t rank = at;
  while (rank > 0 && sorted_[rank - 1] == value) --rank;
  rank = at - rank;
  for (int32_t k = 0; k < v; ++k)
    if (probs_[k] == value && rank-- == 0) return k;
  return 0;  // unreachable: `value` is one of probs_
}

namespace {

// Rows beyond the decoder's slots join as others finish: same tokens, bounded memory.
std::vector<sample_output> run_jobs(decoder& dec, const std::vector<sample_job>& jobs,
                                    const sampling_params& params) {
  std::vector<sample_output> out(jobs.size());
  std::vector<size_t> job_of(dec.capacity());
  std::vector<decoded_row> done;
  size_t next = 0, returned = 0;
  while (returned < jobs.size()) {
    for (; next < jobs.size() && dec.active() < dec.capacity(); ++next)
      job_of[dec.admit(jobs[next].prompt, jobs[next].stream, params.greedy)] = next;
    done.clear();
    dec.step(done);
    for (auto& r : done) {
      auto& o = out[job_of[r.slot]];
      o.tokens = std::move(r.tokens);
      o.logprobs = std::move(r.logprobs);
      o.ended = r.ended;
    }
    returned += done.size();
  }
  return out;
}

}  // namespace

std::vector<sample_output> sample_batch(transformer& model,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params) {
  if (jobs.empty()) return {};
  decoder dec(model, uint32_t(std::min<size_t>(jobs.size(), sample_batch_max_rows)), params);
  return run_jobs(dec, jobs, params);
}

std::vector<sample_output> sample_batch(std::shared_ptr<policy_model> model,
                                        const std::vector<int32_t>& end_ids,
                                        const std::vector<sample_job>& jobs,
                                        const sampling_params& params) {
  if (jobs.empty()) return {};
  decoder dec(std::move(model), uint32_t(std::min<size_t>(jobs.size(), sample_batch_max_rows)),
              params, end_ids);
  return run_jobs(dec, jobs, params);
}

}  // namespace adarl
