#include "models/arch/transformer.hpp"

#include <cmath>
#include <limits>

#include "models/arch/attention.hpp"
#include "models/arch/invariant_linear.hpp"
#include "models/arch/padded_rows.hpp"
#include "models/arch/slot_attention.hpp"

namespace adarl {

namespace nn = torch::nn;

block_impl::block_impl(const model_config& c)
    : heads_(c.n_heads), head_dim_(c.d_model / c.n_heads) {
  ln1_ = register_module("ln1", nn::LayerNorm(nn::LayerNormOptions({c.d_model})));
  ln2_ = register_module("ln2", nn::LayerNorm(nn::LayerNormOptions({c.d_model})));
  qkv_ = register_module("qkv", nn::Linear(c.d_model, 3 * c.d_model));
  out_ = register_module("out", nn::Linear(c.d_model, c.d_model));
  fc1_ = register_module("fc1", nn::Linear(c.d_model, c.d_ff));
  fc2_ = register_module("fc2", nn::Linear(c.d_ff, c.d_model));
}

torch::Tensor block_impl::attend(const torch::Tensor& x, const torch::Tensor& q,
                                 const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& bias) {
  const auto b = x.size(0), t = x.size(1), d = x.size(2);
  auto attn = padded_attention(q, k, v, bias);  // [B, H, T, Dh]
  return mlp_residual(x + out_(attn.transpose(1, 2).reshape({b, t, d})));
}

torch::Tensor block_impl::mlp_residual(const torch::Tensor& h, bool invariant) {
  return h + linear_of(fc2_, torch::gelu(linear_of(fc1_, ln2_(h), invariant)), invariant);
}

torch::Tensor block_impl::forward(const torch::Tensor& x, const torch::Tensor& bias,
                                  torch::Tensor* k_cache, torch::Tensor* v_cache) {
  const auto b = x.size(0), t = x.size(1);
  auto qkv = qkv_(ln1_(x)).view({b, t, 3, heads_, head_dim_}).permute({2, 0, 3, 1, 4});
  auto q = qkv[0], k = qkv[1], v = qkv[2];  // [B, H, T, Dh]
  if (k_cache) {
    if (k_cache->defined()) {
      k = torch::cat({*k_cache, k}, 2);
      v = torch::cat({*v_cache, v}, 2);
    }
    *k_cache = k;
    *v_cache = v;
  }
  return attend(x, q, k, v, bias);
}

torch::Tensor block_impl::decode(const torch::Tensor& x, const torch::Tensor& slots,
                                 const torch::Tensor& positions, torch::Tensor& k_cache,
                                 torch::Tensor& v_cache, bool invariant) {
  auto qkv = linear_of(qkv_, ln1_(x), invariant);
  auto attn = slot_attention(qkv, slots, positions, k_cache, v_cache);
  return mlp_residual(x + linear_of(out_, attn, invariant), invariant);
}

transformer_impl::transformer_impl(const model_config& c) : config_(c) {
  tok_ = register_module("tok", nn::Embedding(c.vocab_size, c.d_model));
  pos_ = register_module("pos", nn::Embedding(c.max_len, c.d_model));
  for (int32_t i = 0; i < c.n_layers; ++i)
    blocks_.push_back(register_module("block" + std::to_string(i), block(c)));
  ln_f_ = register_module("ln_f", nn::LayerNorm(nn::LayerNormOptions({c.d_model})));
  if (!c.tied_output)
    head_ = register_module("head", nn::Linear(nn::LinearOptions(c.d_model, c.vocab_size)));
  // GPT-2 style small initialisation keeps early logits near uniform.
  torch::NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.dim() >= 2) p.normal_(0.0, 0.02);
}

torch::Tensor transformer_impl::logits(const torch::Tensor& h, bool invariant) {
  if (invariant)
    return config_.tied_output ? invariant_linear(h, tok_->weight, torch::Tensor())
                               : invariant_linear(h, head_->weight, head_->bias);
  return config_.tied_output ? torch::matmul(h, tok_->weight.t()) : head_(h);
}

torch::Tensor transformer_impl::head(const torch::Tensor& x, bool invariant) {
  return logits(ln_f_(x), invariant);
}

torch::Device transformer_impl::device() const { return tok_->weight.device(); }

torch::Tensor transformer_impl::trunk(const torch::Tensor& tokens,
                                      const torch::Tensor& positions,
                                      const torch::Tensor& bias, kv_cache* cache) {
  auto x = tok_(tokens) + pos_(positions.clamp_max(config_.max_len - 1));
  for (size_t i = 0; i < blocks_.size(); ++i)
    x = blocks_[i]->forward(x, bias, cache ? &cache->k[i] : nullptr,
                            cache ? &cache->v[i] : nullptr);
  return x;
}

torch::Tensor transformer_impl::run(const torch::Tensor& tokens,
                                    const torch::Tensor& positions,
                                    const torch::Tensor& bias, kv_cache* cache) {
  return head(trunk(tokens, positions, bias, cache));
}

torch::Tensor transformer_impl::forward(const torch::Tensor& tokens,
                                        const torch::Tensor& mask) {
  return run(tokens, positions_of(mask), causal_padded_bias(mask), nullptr);
}

torch::Tensor transformer_impl::hidden(const torch::Tensor& tokens, const torch::Tensor& mask) {
  return ln_f_(trunk(tokens, positions_of(mask), causal_padded_bias(mask), nullptr));
}

torch::Tensor transformer_impl::prefill(const torch::Tensor& tokens,
                                        const torch::Tensor& mask, kv_cache& cache) {
  cache.k.assign(blocks_.size(), torch::Tensor());
  cache.v.assign(blocks_.size(), torch::Tensor());
  cache.key_mask = mask.clone();
  cache.next_position = mask.to(torch::kLong).sum(1);
  auto logits = run(tokens, positions_of(mask), causal_padded_bias(mask), &cache);
  return logits.select(1, tokens.size(1) - 1);
}

torch::Tensor transformer_impl::step(const torch::Tensor& tokens, kv_cache& cache) {
  const auto b = tokens.size(0);
  cache.key_mask = torch::cat(
      {cache.key_mask, torch::ones({b, 1}, cache.key_mask.options())}, 1);
  auto bias = attention_bias(cache.key_mask.unsqueeze(1));  // [B, 1, 1, Tk]
  auto logits = run(tokens.view({b, 1}), cache.next_position.view({b, 1}), bias, &cache);
  cache.next_position = cache.next_position + 1;
  return logits.select(1, 0);
}

slot_cache transformer_impl::make_slot_cache(int64_t capacity) {
  const auto& p = tok_->weight;
  const int64_t dh = config_.d_model / config_.n_heads;
  // Zeroed, not empty: masked positions get weight 0, and 0 * NaN garbage would be NaN.
  slot_cache cache;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    cache.k.push_back(torch::zeros({capacity, config_.n_heads, config_.max_len, dh}, p.options()));
    cache.v.push_back(torch::zeros({capacity, config_.n_heads, config_.max_len, dh}, p.options()));
  }
  return cache;
}

torch::Tensor transformer_impl::decode_slots(const torch::Tensor& tokens,
                                             const torch::Tensor& slots,
                                             const torch::Tensor& positions,
                                             const torch::Tensor& wanted,
                                             slot_cache& cache, bool invariant) {
  auto x = tok_(tokens) + pos_(positions);  // [N, D]
  for (size_t i = 0; i < blocks_.size(); ++i)
    x = blocks_[i]->decode(x, slots, positions, cache.k[i], cache.v[i], invariant);
  return head(x.index_select(0, wanted), invariant);
}

}  // namespace adarl
