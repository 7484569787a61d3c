// The replicated parts of the learner (models/train/policy_learner.hpp), for every
// architecture: joining the ranks, handing rank 0's state to the others, the gradient
// all-reduce in buckets, the per-step parameter check and the loop of ranks > 0.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <type_traits>
#include <utility>

#include "base/device_name.hpp"
#include "engines/batch_shares.hpp"
#include "models/train/policy_learner.hpp"

namespace adarl {

namespace {

using clock_type = std::chrono::steady_clock;

/// Gradient bucket: 16 Mi float32 (64 MiB) per collective, so that 1 M-50 M parameters
/// take 1-4 all-reduces and the flat copy stays bounded.
constexpr int64_t bucket_elements = int64_t{16} << 20;

// The shortest of %.15g, %.16g, %.17g that reads back as `v` (0.0005, not
// 0.00050000000000000001).
std::string number(double v) {
  char b[40];
  for (int digits : {15, 16, 17}) {
    std::snprintf(b, sizeof b, "%.*g", digits, v);
    if (std::strtod(b, nullptr) == v) break;
  }
  return b;
}

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::map<std::string, std::string> fields_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos)
      out[line.substr(0, eq)] = line.substr(eq + 1);
  return out;
}

// Copies rank 0's tensors into every rank's, one collective per dtype.
void broadcast_flat(replica_group& g, const std::vector<torch::Tensor>& ts) {
  std::map<int, std::vector<torch::Tensor>> by_type;
  for (const auto& t : ts) by_type[int(t.scalar_type())].push_back(t);
  for (auto& [type, group] : by_type) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : group) parts.push_back(t.detach().reshape(-1));
    auto flat = torch::cat(parts);
    g.broadcast(flat);
    int64_t at = 0;
    for (auto& t : group) {
      t.detach().copy_(flat.narrow(0, at, t.numel()).view_as(t));
      at += t.numel();
    }
  }
}

}  // namespace

policy_learner::~policy_learner() {
  if (!group_ || group_->rank() != 0) return;
  try {  // tell the other ranks that the run ended, and give them a moment to read it
    group_->post("Q");
    if (!group_failed_) group_->await_taken(std::chrono::seconds(5));
  } catch (const std::exception&) {
  }
}

result<bool> policy_learner::join_replicas(const replica_join_watch& watch) {
  auto g = replica_group::join(settings_.replicas, settings_.config_text, device_, watch);
  if (!g) return g.err();
  group_ = std::move(*g);
  if (group_->rank() != 0) return true;  // it takes the state in serve()
  return hand_state("learner: the initial state");
}

result<bool> policy_learner::hand_state(const std::string& what) {
  try {
    const auto header = state_header();
    group_->post("S" + header);
    sync_state(header);
  } catch (const std::exception& e) {
    group_failed_ = true;
    return error{what + ": handing it to the other ranks: " + group_->blame(exception_text(e))};
  }
  return true;
}

void policy_learner::check_replicas() {
  auto h = torch::tensor({parameter_hash()}, torch::kInt64);
  auto lo = h.clone();
  group_->allreduce(h, "max");
  group_->allreduce(lo, "min");
  if (h.item<int64_t>() != lo.item<int64_t>())
    throw std::runtime_error("the ranks' parameters differ after step " +
                             std::to_string(version_) + " (learner.check_replicas)");
}

std::string policy_learner::state_header() {
  std::string out = "version=" + std::to_string(version_) + "\nschedule=" +
                    std::to_string(opt_->steps()) + "\n";
  auto& states = opt_->adamw().state();
  for (const auto& item : model_.module->named_parameters()) {
    auto it = states.find(adamw_key_of(item.value()));
    if (it == states.end()) continue;
    const auto& st = static_cast<const torch::optim::AdamWParamState&>(*it->second);
    out += "step." + item.key() + "=" + std::to_string(st.step()) + "\n";
  }
  return out;
}

void policy_learner::sync_state(const std::string& header) {
  torch::NoGradGuard no_grad;
  const auto fields = fields_of(header);
  const bool source = group_->rank() == 0;
  std::vector<torch::Tensor> tensors = model_.module->parameters();
  for (const auto& b : model_.module->buffers()) tensors.push_back(b);
  broadcast_flat(*group_, tensors);
  // AdamW's moments of the parameters that have state on rank 0 (none before step 1).
  auto& states = opt_->adamw().state();
  std::vector<std::pair<adamw_state_key, int64_t>> steps;
  std::vector<torch::Tensor> avg, sq;
  for (const auto& item : model_.module->named_parameters()) {
    auto it = fields.find("step." + item.key());
    if (it == fields.end()) continue;
    const auto& p = item.value();
    steps.emplace_back(adamw_key_of(p), std::stoll(it->second));
    if (source) {
      auto& st = static_cast<torch::optim::AdamWParamState&>(*states.at(adamw_key_of(p)));
      avg.push_back(st.exp_avg());
      sq.push_back(st.exp_avg_sq());
    } else {
      avg.push_back(torch::zeros_like(p));
      sq.push_back(torch::zeros_like(p));
    }
  }
  if (!avg.empty()) {
    broadcast_flat(*group_, avg);
    broadcast_flat(*group_, sq);
  }
  if (source) return;
  states.clear();
  for (size_t i = 0; i < steps.size(); ++i) {
    auto st = std::make_unique<torch::optim::AdamWParamState>();
    st->step(steps[i].second);
    st->exp_avg(avg[i]);
    st->exp_avg_sq(sq[i]);
    states[steps[i].first] = std::move(st);
  }
  opt_->set_steps(std::stoll(fields.at("schedule")));
  version_ = std::stoull(fields.at("version"));
}

void policy_learner::reduce_gradients(train_stats& stats) {
  const auto t0 = clock_type::now();
  auto params = model_.module->parameters();
  // The statistics and which parameters have a gradient anywhere (a rank with no
  // samples has none: its share is zero, and one learner would step the parameter).
  std::vector<double> head{stats.loss, stats.clip_fraction, stats.mean_ratio, stats.entropy};
  for (const auto& p : params) head.push_back(p.grad().defined() ? 1 : 0);
  auto h = torch::tensor(head, torch::kFloat64);
  group_->allreduce(h);
  auto hv = h.accessor<double, 1>();
  stats.loss = hv[0];
  stats.clip_fraction = hv[1];
  stats.mean_ratio = hv[2];
  stats.entropy = hv[3];
  torch::NoGradGuard no_grad;
  std::vector<size_t> bucket;
  int64_t filled = 0;
  auto flush = [&] {
    if (bucket.empty()) return;
    std::vector<torch::Tensor> parts;
    for (size_t i : bucket) {
      const auto& g = params[i].grad();
      parts.push_back(g.defined() ? g.reshape(-1) : torch::zeros({params[i].numel()}, params[i].options()));
    }
    auto flat = torch::cat(parts);
    group_->allreduce(flat);
    stats.reduced_bytes += uint64_t(flat.numel()) * flat.element_size();
    int64_t at = 0;
    for (size_t i : bucket) {
      auto& p = params[i];
      auto slice = flat.narrow(0, at, p.numel()).view_as(p);
      if (p.grad().defined()) p.mutable_grad().copy_(slice);
      else p.mutable_grad() = slice.clone();
      at += p.numel();
    }
    bucket.clear();
    filled = 0;
  };
  for (size_t i = 0; i < params.size(); ++i) {
    if (hv[int64_t(4 + i)] == 0) continue;
    if (filled > 0 && filled + params[i].numel() > bucket_elements) flush();
    bucket.push_back(i);
    filled += params[i].numel();
  }
  flush();
  stats.reduce_seconds += std::chrono::duration<double>(clock_type::now() - t0).count();
}

int64_t policy_learner::parameter_hash() {
  torch::NoGradGuard no_grad;
  uint64_t h = 1469598103934665603ull;
  for (const auto& p : model_.module->parameters()) {
    auto c = p.detach().to(torch::kCPU).contiguous();
    h = fnv1a(c.data_ptr(), size_t(c.numel()) * c.element_size(), h);
  }
  int64_t out;
  std::memcpy(&out, &h, sizeof out);
  return out;
}

result<uint64_t> policy_learner::serve(const std::atomic<bool>* stop,
                                       const replica_step_observer& on_step) {
  const std::string me = "learner rank " + std::to_string(group_->rank());
  for (;;) {
    auto cmd = group_->take(stop);
    if (!cmd) return error{me + ": " + cmd.err().message};
    const char kind = cmd->empty() ? '?' : (*cmd)[0];
    try {
      if (kind == 'Q') return version_;
      if (kind == 'S') {
        sync_state(cmd->substr(1));
        continue;
      }
      if (kind != 'T') return error{me + ": an unknown command from rank 0"};
      auto batch = decode_train_batch(std::string_view(*cmd).substr(1));
      if (!batch) return error{me + ": " + batch.err().message};
      auto kept = kept_of(*batch);
      if (!kept) return error{me + ": " + kept.err().message};
      step_on(*kept);
      if (on_step) on_step(snapshot());
    } catch (const std::exception& e) {
      opt_->zero_grad();
      return error{me + ", step " + std::to_string(version_ + 1) + ": " + exception_text(e)};
    }
  }
}

result<std::unique_ptr<learner_engine>> make_coordinator(const replica_config& r,
                                                         const learner_builder& build,
                                                         const replica_join_watch& watch) {
  if (r.replicas > 1 && r.rank != 0)
    return error{"learner rank " + std::to_string(r.rank) +
                 ": the coordinator's learner is rank 0 (other ranks: adarl worker learn)"};
  auto engine = build();
  if (!engine) return engine.err();
  if (r.replicas > 1)
    if (auto ok = (*engine)->join_replicas(watch); !ok) return ok.err();
  return std::unique_ptr<learner_engine>(std::move(*engine));
}

result<uint64_t> serve_worker(const replica_config& r, const learner_builder& build,
                              const std::atomic<bool>* stop,
                              const replica_step_observer& on_step) {
  if (r.replicas < 2 || r.rank == 0 || r.rank >= r.replicas)
    return error{"learner rank " + std::to_string(r.rank) +
                 ": a replica worker's rank must be in [1, " + std::to_string(r.replicas) +
                 ") (learner.replicas " + std::to_string(r.replicas) + ")"};
  auto engine = build();
  if (!engine) return engine.err();
  replica_join_watch watch;
  watch.stop = stop;
  if (auto ok = (*engine)->join_replicas(watch); !ok) return ok.err();
  return (*engine)->serve(stop, on_step);
}

std::string text_hash(const std::string& text) {
  return std::to_string(fnv1a(text.data(), text.size()));
}

std::string learner_config_lines(const learner_settings& s, const std::string& device,
                                 std::map<std::string, std::string> f) {
  const auto& o = s.optimizer;
  const auto& l = s.loss;
  f.insert({
      {"learner.lr", number(o.lr)},
      {"learner.weight_decay", number(o.weight_decay)},
      {"learner.beta1", number(o.beta1)},
      {"learner.beta2", number(o.beta2)},
      {"learner.eps", number(o.eps)},
      {"learner.warmup_steps", std::to_string(o.warmup_steps)},
      {"learner.grad_clip", number(o.grad_clip)},
      {"learner.clip_low", number(l.clip_low)},
      {"learner.clip_high", number(l.clip_high)},
      {"learner.dual_clip", number(l.dual_clip)},
      {"learner.log_ratio_clamp", number(l.log_ratio_clamp)},
      {"learner.micro_batch", std::to_string(s.micro_batch)},
      {"learner.updates_per_step", std::to_string(s.updates_per_step)},
      {"learner.replicas", std::to_string(s.replicas.replicas)},
      {"learner.check_replicas", s.replicas.check_every_step ? "true" : "false"},
      {"learner.autocast_bf16", s.autocast_bf16 ? "true" : "false"},
      {"learner.backend", is_cuda_device(device) ? "nccl" : "gloo"},
      {"sampling.temperature", number(s.temperature)},
  });
  std::string out;
  for (const auto& [k, v] : f) out += k + "=" + v + "\n";
  return out;
}

}  // namespace adarl
