#include "models/train/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "formats/safetensors.hpp"
#include "formats/safetensors_writer.hpp"

namespace adarl {

policy_optimizer::policy_optimizer(transformer& model, optimizer_config config)
    : policy_optimizer(model.ptr(), config) {}

policy_optimizer::policy_optimizer(std::shared_ptr<torch::nn::Module> module,
                                   optimizer_config config)
    : model_(std::move(module)), config_(config) {
  auto opts = torch::optim::AdamWOptions(config.lr)
                  .betas({config.beta1, config.beta2})
                  .eps(config.eps)
                  .weight_decay(config.weight_decay);
  adamw_ = std::make_unique<torch::optim::AdamW>(model_->parameters(), opts);
}

void policy_optimizer::zero_grad() { adamw_->zero_grad(); }

double policy_optimizer::next_lr() const {
  if (config_.warmup_steps <= 0) return config_.lr;
  const double ramp = double(steps_ + 1) / double(config_.warmup_steps);
  return config_.lr * std::min(1.0, ramp);
}

double policy_optimizer::step() {
  const double max_norm = config_.grad_clip > 0 ? config_.grad_clip
                                                : std::numeric_limits<double>::infinity();
  const double norm = torch::nn::utils::clip_grad_norm_(model_->parameters(), max_norm);
  if (!std::isfinite(norm)) {  // never applied: the weights and Adam's moments stay
    zero_grad();
    return norm;
  }
  const double lr = next_lr();
  for (auto& group : adamw_->param_groups())
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
  adamw_->step();
  ++steps_;
  return norm;
}

namespace {

std::span<const std::byte> bytes_of(const torch::Tensor& t) {
  return {reinterpret_cast<const std::byte*>(t.data_ptr<float>()), size_t(t.numel()) * 4};
}

}  // namespace

adamw_state_key adamw_key_of(const torch::Tensor& p) {
  return torch_compat::optimizer_state_key_of<adamw_state_key>(p.unsafeGetTensorImpl());
}

result<bool> policy_optimizer::save_state(const std::string& path) {
  std::vector<torch::Tensor> keep;  // contiguous CPU float copies outlive the write
  std::vector<tensor_to_write> tensors;
  std::map<std::string, std::string> meta{{"format", "adarl-adamw-1"},
                                          {"schedule_steps", std::to_string(steps_)}};
  auto& states = adamw_->state();
  for (const auto& item : model_->named_parameters()) {
    auto it = states.find(adamw_key_of(item.value()));
    if (it == states.end()) continue;  // never stepped: no state yet
    auto& st = static_cast<torch::optim::AdamWParamState&>(*it->second);
    meta["step." + item.key()] = std::to_string(st.step());
    for (auto [suffix, t] : {std::pair{".exp_avg", st.exp_avg()}, {".exp_avg_sq", st.exp_avg_sq()}}) {
      keep.push_back(t.detach().to(torch::kCPU, torch::kFloat).contiguous());
      tensors.push_back({item.key() + suffix, tensor_dtype::f32,
                         keep.back().sizes().vec(), bytes_of(keep.back())});
    }
  }
  return write_safetensors(path, tensors, meta);
}

result<bool> policy_optimizer::load_legacy_state(const std::string& path) {
  try {
    torch::load(*adamw_, path);
  } catch (const c10::Error& e) {
    return error{path + ": " + e.what_without_backtrace()};
  }
  return true;
}

result<bool> policy_optimizer::load_state(const std::string& path) {
  auto file = safetensors_file::open(path);
  if (!file) return file.err();
  const auto& meta = file->metadata();
  auto field = [&](const std::string& key) -> const std::string* {
    auto it = meta.find(key);
    return it == meta.end() ? nullptr : &it->second;
  };
  if (const auto* f = field("format"); !f || *f != "adarl-adamw-1")
    return error{path + ": not an adarl optimizer state (format)"};
  const auto* schedule = field("schedule_steps");
  if (!schedule) return error{path + ": no schedule_steps"};
  // Everything is read and checked before the optimizer changes.
  std::vector<std::pair<adamw_state_key, std::unique_ptr<torch::optim::AdamWParamState>>> loaded;
  for (const auto& item : model_->named_parameters()) {
    const auto* step = field("step." + item.key());
    if (!step) continue;
    const auto& p = item.value();
    auto state = std::make_unique<torch::optim::AdamWParamState>();
    try {
      state->step(std::stoll(*step));
    } catch (const std::exception&) {
      return error{path + ": step of " + item.key() + " is not an integer"};
    }
    std::vector<torch::Tensor> moments;
    for (const char* suffix : {".exp_avg", ".exp_avg_sq"}) {
      auto view = file->tensor(item.key() + suffix, p.sizes().vec());
      if (!view) return view.err();
      auto t = torch::empty(p.sizes(), torch::kFloat);
      if (auto ok = to_float32(*view, {t.data_ptr<float>(), size_t(t.numel())}, item.key());
          !ok)
        return ok.err();
      moments.push_back(t.to(p.device()));
    }
    state->exp_avg(moments[0]);
    state->exp_avg_sq(moments[1]);
    loaded.emplace_back(adamw_key_of(p), std::move(state));
  }
  auto& states = adamw_->state();
  states.clear();
  for (auto& [key, state] : loaded) states[key] = std::move(state);
  try {
    steps_ = std::stoll(*schedule);
  } catch (const std::exception&) {
    return error{path + ": schedule_steps is not an integer"};
  }
  return true;
}

}  // namespace adarl
