#include "models/arch/hf_model.hpp"

#include <cmath>
#include <limits>

#include "models/arch/attention.hpp"
#include "models/arch/invariant_linear.hpp"
#include "models/arch/padded_rows.hpp"
#include "models/arch/rotary.hpp"
#include "models/arch/slot_attention.hpp"

namespace adarl {

namespace nn = torch::nn;

hf_attention_impl::hf_attention_impl(const hf_config& c) {
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  q_proj = register_module("q_proj", linear_layer(c.hidden_size, q, c.qkv_bias));
  k_proj = register_module("k_proj", linear_layer(c.hidden_size, kv, c.qkv_bias));
  v_proj = register_module("v_proj", linear_layer(c.hidden_size, kv, c.qkv_bias));
  o_proj = register_module("o_proj", linear_layer(q, c.hidden_size, c.o_bias));
  if (c.qk_norm) {
    q_norm = register_module("q_norm", hf_rms_norm(c.head_dim, c.rms_norm_eps));
    k_norm = register_module("k_norm", hf_rms_norm(c.head_dim, c.rms_norm_eps));
  }
}

hf_layer_impl::hf_layer_impl(const hf_config& c) {
  self_attn = register_module("self_attn", hf_attention(c));
  mlp = register_module("mlp", hf_mlp(c));
  input_layernorm = register_module("input_layernorm", hf_rms_norm(c.hidden_size, c.rms_norm_eps));
  post_attention_layernorm =
      register_module("post_attention_layernorm", hf_rms_norm(c.hidden_size, c.rms_norm_eps));
}

hf_backbone_impl::hf_backbone_impl(const hf_config& c) {
  embed_tokens = register_module("embed_tokens", nn::Embedding(c.vocab_size, c.hidden_size));
  layers = register_module("layers", nn::ModuleList());
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    blocks.push_back(hf_layer(c));
    layers->push_back(blocks.back());
  }
  norm = register_module("norm", hf_rms_norm(c.hidden_size, c.rms_norm_eps));
}

hf_model_impl::hf_model_impl(const hf_config& c, int64_t context_length)
    : config_(c), context_(context_length) {
  inv_freq_ = rope_inverse_frequencies(c.rope, c.head_dim);
  model = register_module("model", hf_backbone(c));
  if (!c.tie_word_embeddings)
    lm_head = register_module("lm_head", linear_layer(c.hidden_size, c.vocab_size, false));
  torch::NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.dim() >= 2) p.normal_(0.0, 0.02);
  for (auto& item : named_parameters())
    if (item.key().size() > 5 && item.key().compare(item.key().size() - 5, 5, ".bias") == 0)
      item.value().zero_();
}

torch::Device hf_model_impl::device() const { return model->embed_tokens->weight.device(); }

std::pair<torch::Tensor, torch::Tensor> hf_model_impl::rotary(
    const torch::Tensor& positions) const {
  return rotary_cos_sin(inv_freq_, positions);
}

torch::Tensor hf_model_impl::logits(const torch::Tensor& h, bool invariant) {
  const auto& w = config_.tie_word_embeddings ? model->embed_tokens->weight : lm_head->weight;
  if (invariant && h.dim() == 2) return invariant_linear(h, w, torch::Tensor());
  return torch::linear(h, w);
}

torch::Tensor hf_model_impl::attend(hf_layer_impl& l, const torch::Tensor& x,
                                    const torch::Tensor& cos, const torch::Tensor& sin,
                                    const torch::Tensor& bias) {
  const int64_t b = x.size(0), t = x.size(1), dh = config_.head_dim;
  const int64_t hq = config_.num_attention_heads, hkv = config_.num_key_value_heads;
  auto& a = *l.self_attn;
  auto h = l.input_layernorm(x);
  auto q = a.norm_q(a.q_proj(h).view({b, t, hq, dh})).transpose(1, 2);  // [B, Hq, T, Dh]
  auto k = a.norm_k(a.k_proj(h).view({b, t, hkv, dh})).transpose(1, 2);
  auto v = a.v_proj(h).view({b, t, hkv, dh}).transpose(1, 2);
  q = apply_rotary(q, cos, sin);
  k = apply_rotary(k, cos, sin);
  if (hkv != hq) {
    k = k.repeat_interleave(hq / hkv, 1);
    v = v.repeat_interleave(hq / hkv, 1);
  }
  auto out = padded_attention(q, k, v, bias).transpose(1, 2).reshape({b, t, hq * dh});
  return x + a.o_proj(out);
}

torch::Tensor hf_model_impl::hidden(const torch::Tensor& tokens, const torch::Tensor& mask) {
  auto bias = causal_padded_bias(mask);
  auto [cos, sin] = rotary(positions_of(mask));  // [B, T, Dh]
  cos = cos.unsqueeze(1);               // [B, 1, T, Dh]: every head
  sin = sin.unsqueeze(1);
  auto x = model->embed_tokens(tokens);
  for (auto& layer : model->blocks) {
    x = attend(*layer, x, cos, sin, bias);
    x = x + layer->mlp(layer->post_attention_layernorm(x));
  }
  return model->norm(x);
}

torch::Tensor hf_model_impl::forward(const torch::Tensor& tokens, const torch::Tensor& mask) {
  return logits(hidden(tokens, mask));
}

slot_cache hf_model_impl::make_slot_cache(int64_t capacity) {
  const auto opts = model->embed_tokens->weight.options();
  slot_cache cache;
  // Zeroed, not empty: masked positions get weight 0, and 0 * NaN garbage would be NaN.
  for (int64_t i = 0; i < config_.num_hidden_layers; ++i) {
    cache.k.push_back(
        torch::zeros({capacity, config_.num_key_value_heads, context_, config_.head_dim}, opts));
    cache.v.push_back(
        torch::zeros({capacity, config_.num_key_value_heads, context_, config_.head_dim}, opts));
  }
  return cache;
}

torch::Tensor hf_model_impl::decode_slots(const torch::Tensor& tokens, const torch::Tensor& slots,
                                          const torch::Tensor& positions,
                                          const torch::Tensor& wanted, slot_cache& cache,
                                          bool invariant) {
  const int64_t n = tokens.size(0), dh = config_.head_dim;
  const int64_t hq = config_.num_attention_heads, hkv = config_.num_key_value_heads;
  auto [cos, sin] = rotary(positions);  // [N, Dh]
  cos = cos.unsqueeze(1);               // [N, 1, Dh]: every head
  sin = sin.unsqueeze(1);
  auto x = model->embed_tokens(tokens);  // [N, D]
  for (size_t i = 0; i < model->blocks.size(); ++i) {
    auto& l = *model->blocks[i];
    auto& a = *l.self_attn;
    auto h = l.input_layernorm(x);
    auto q = apply_rotary(a.norm_q(linear_of(a.q_proj, h, invariant).view({n, hq, dh})), cos, sin);
    auto k = apply_rotary(a.norm_k(linear_of(a.k_proj, h, invariant).view({n, hkv, dh})), cos, sin);
    auto v = linear_of(a.v_proj, h, invariant).view({n, hkv, dh});
    auto attn = gqa_slot_attention(q, k, v, slots, positions, cache.k[i], cache.v[i]);
    x = x + linear_of(a.o_proj, attn, invariant);
    x = x + l.mlp->forward(l.post_attention_layernorm(x), invariant);
  }
  return logits(model->norm(x.index_select(0, wanted)), invariant);
}

}  // namespace adarl
