#include "models/arch/hf_model.hpp"

#include <cmath>
#include <limits>

#include "models/arch/padded_rows.hpp"
#include "models/arch/slot_attention.hpp"
#include "models/arch/invariant_linear.hpp"

namespace adarl {

namespace nn = torch::nn;

namespace {

nn::Linear linear(int64_t in, int64_t out, bool bias) {
  return nn::Linear(nn::LinearOptions(in, out).bias(bias));
}

}  // namespace

hf_rms_norm_impl::hf_rms_norm_impl(int64_t width, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({width}));
}

torch::Tensor hf_rms_norm_impl::forward(const torch::Tensor& x) {
  auto h = x.to(torch::kFloat);
  h = h * torch::rsqrt(h.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return weight * h.to(x.scalar_type());
}

hf_attention_impl::hf_attention_impl(const hf_config& c) {
  const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
  q_proj = register_module("q_proj", linear(c.hidden_size, q, c.qkv_bias));
  k_proj = register_module("k_proj", linear(c.hidden_size, kv, c.qkv_bias));
  v_proj = register_module("v_proj", linear(c.hidden_size, kv, c.qkv_bias));
  o_proj = register_module("o_proj", linear(q, c.hidden_size, c.o_bias));
  if (c.qk_norm) {
    q_norm = register_module("q_norm", hf_rms_norm(c.head_dim, c.rms_norm_eps));
    k_norm = register_module("k_norm", hf_rms_norm(c.head_dim, c.rms_norm_eps));
  }
}

hf_mlp_impl::hf_mlp_impl(const hf_config& c) {
  gate_proj = register_module("gate_proj", linear(c.hidden_size, c.intermediate_size, c.mlp_bias));
  up_proj = register_module("up_proj", linear(c.hidden_size, c.intermediate_size, c.mlp_bias));
  down_proj = register_module("down_proj", linear(c.intermediate_size, c.hidden_size, c.mlp_bias));
}

torch::Tensor hf_mlp_impl::project(nn::Linear& lin, const torch::Tensor& x, bool invariant) {
  return invariant ? invariant_linear(x, lin->weight, lin->bias) : lin(x);
}

torch::Tensor hf_mlp_impl::forward(const torch::Tensor& x, bool invariant) {
  return project(down_proj,
                 torch::silu(project(gate_proj, x, invariant)) * project(up_proj, x, invariant),
                 invariant);
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

torch::Tensor rope_inverse_frequencies(const hf_rope& rope, int64_t head_dim) {
  // transformers: 1 / base^(arange(0, dim, 2).float() / dim), in float32.
  auto exponent = torch::arange(0, head_dim, 2, torch::kLong).to(torch::kFloat) / double(head_dim);
  auto inv = 1.0 / torch::pow(torch::full({}, rope.theta, torch::kFloat), exponent);
  if (rope.type == hf_rope::scaling::linear) return inv / rope.factor;
  if (rope.type != hf_rope::scaling::llama3) return inv;
  // _compute_llama3_parameters: long wavelengths slowed by `factor`, short ones kept,
  // a smooth blend between.
  const double old_len = double(rope.original_max_position_embeddings);
  const double low_wavelen = old_len / rope.low_freq_factor;
  const double high_wavelen = old_len / rope.high_freq_factor;
  constexpr double pi = 3.14159265358979323846;
  auto wavelen = 2 * pi / inv;
  auto scaled = torch::where(wavelen > low_wavelen, inv / rope.factor, inv);
  auto smooth = (old_len / wavelen - rope.low_freq_factor) /
                (rope.high_freq_factor - rope.low_freq_factor);
  auto smoothed = (1 - smooth) * scaled / rope.factor + smooth * scaled;
  auto medium = (wavelen >= high_wavelen).logical_and(wavelen <= low_wavelen);
  return torch::where(medium, smoothed, scaled);
}

torch::Tensor apply_rotary(const torch::Tensor& x, const torch::Tensor& cos,
                           const torch::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  auto rotated = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos + rotated * sin;
}

hf_model_impl::hf_model_impl(const hf_config& c, int64_t context_length)
    : config_(c), context_(context_length) {
  inv_freq_ = rope_inverse_frequencies(c.rope, c.head_dim);
  model = register_module("model", hf_backbone(c));
  if (!c.tie_word_embeddings)
    lm_head = register_module("lm_head", linear(c.hidden_size, c.vocab_size, false));
  torch::NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.dim() >= 2) p.normal_(0.0, 0.02);
  for (auto& item : named_parameters())
    if (item.key().size() > 5 && item.key().compare(item.key().size() - 5, 5, ".bias") == 0)
      item.value().zero_();
}

torch::Device hf_model_impl::device() const { return model->embed_tokens->weight.device(); }

std::pair<torch::Tensor, torch::Tensor> hf_model_impl::rotary(const torch::Tensor& positions) const {
  auto inv = inv_freq_.to(positions.device());
  auto freqs = positions.to(torch::kFloat).unsqueeze(-1) * inv;  // [..., Dh/2]
  auto emb = torch::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
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
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(dh)) + bias;
  auto probs = torch::softmax(scores.to(torch::kFloat), -1).to(q.scalar_type());
  auto out = torch::matmul(probs, v).transpose(1, 2).reshape({b, t, hq * dh});
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
    auto& m = *l.mlp;
    auto h = l.input_layernorm(x);
    auto q = apply_rotary(a.norm_q(m.project(a.q_proj, h, invariant).view({n, hq, dh})), cos, sin);
    auto k = apply_rotary(a.norm_k(m.project(a.k_proj, h, invariant).view({n, hkv, dh})), cos, sin);
    auto v = m.project(a.v_proj, h, invariant).view({n, hkv, dh});
    auto attn = gqa_slot_attention(q, k, v, slots, positions, cache.k[i], cache.v[i]);
    x = x + m.project(a.o_proj, attn, invariant);
    x = x + m.forward(l.post_attention_layernorm(x), invariant);
  }
  return logits(model->norm(x.index_select(0, wanted)), invariant);
}

}  // namespace adarl
