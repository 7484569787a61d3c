#include "net/config_cluster.hpp"

#include <caf/all.hpp>

#include <cstdio>

#include "engines/engine_spec.hpp"
#include "net/generate_hub.hpp"
#include "net/verify_hub.hpp"
#include "pipelines/engine_registry.hpp"
#include "pipelines/pipeline.hpp"

namespace adarl {

namespace {

std::string key_hint(const std::optional<curve_keys>& curve) {
  return curve ? " --server-key '" + curve->public_key + "')" : std::string(")");
}

class config_cluster_parts final : public cluster_parts {
 public:
  result<std::vector<verifier_actor>> scorers(const cluster_context& c,
                                              const std::vector<verifier_actor>& local) override {
    const auto& r = c.config->actors.remote_verifiers;
    if (r.bind.empty()) return local;
    auto tok = tokenizer::from_charset(tokenizer::default_charset());
    if (!tok) return tok.err();
    remote_verifier_setup rs;
    rs.bind = r.bind;
    rs.pool = r.pool;
    rs.scoring = {c.prompts,
                  std::make_shared<const verifier_registry>(verifier_registry::with_builtins()),
                  std::make_shared<const tokenizer>(*tok), c.tracker};
    rs.local = local;
    rs.warn = c.warn;
    rs.curve = r.curve;
    rs.curve_clients = r.curve_clients;
    auto opened = remote_verifier_hub::open(std::move(rs));
    if (!opened) return opened.err();
    verifiers_ = std::move(*opened);
    c.say("remote verifiers: listening on " + verifiers_->endpoint() +
          " (adarl worker verify --connect ENDPOINT" + key_hint(r.curve));
    verifier_actor hub = spawn_remote_verifier(*c.sys, verifiers_, c.tracker);
    actors_.push_back(caf::actor_cast<caf::actor>(hub));
    return std::vector<verifier_actor>{hub};
  }

  result<std::vector<generator_actor>> generators(
      const cluster_context& c, const std::vector<verifier_actor>& scorers) override {
    const auto& r = c.config->actors.remote_generators;
    if (r.bind.empty()) return std::vector<generator_actor>{};
    remote_generator_setup gs;
    gs.bind = r.bind;
    gs.heartbeat = r.heartbeat;
    gs.timeout = r.timeout;
    gs.chunk_bytes = r.chunk_bytes;
    gs.window = r.window;
    gs.curve = r.curve;
    gs.curve_clients = r.curve_clients;
    gs.weights_path = c.config->weights_path;
    gs.engine = encode_engine_spec(run_engine_spec(*c.config, *c.prompts));
    gs.prompts = c.prompts;
    gs.tracker = c.tracker;
    gs.verifiers = scorers;
    gs.metrics = c.metrics;
    gs.warn = c.warn;
    gs.note = c.note;
    auto opened = remote_generator_hub::open(*c.sys, std::move(gs));
    if (!opened) return opened.err();
    generators_ = std::move(*opened);
    c.say("remote generators: listening on " + generators_->endpoint() +
          " (adarl worker generate --connect ENDPOINT" + key_hint(r.curve));
    // The learner sends its weights to this actor; it hands them to every worker.
    return std::vector<generator_actor>{spawn_remote_generators(*c.sys, generators_)};
  }

  std::vector<std::string> close() override {
    std::vector<std::string> lines;
    if (generators_) {
      generators_->close();  // its proxies end with it
      const auto s = generators_->stats();
      char mb[32];
      std::snprintf(mb, sizeof mb, "%.1f", double(s.weights_bytes) / 1e6);
      lines.push_back("remote generators: " + std::to_string(s.joined) + " workers joined, " +
                      std::to_string(s.lost) + " lost, " + std::to_string(s.orders_reissued) +
                      " orders re-issued, " + std::to_string(s.stale_results) +
                      " stale results dropped, " + mb + " MB of weights sent (" +
                      std::to_string(s.weights_versions) + " versions)");
      generators_.reset();
    }
    if (verifiers_) {
      verifiers_->close();  // before the verifiers and the tracker it sends to go away
      const auto s = verifiers_->stats();
      lines.push_back(
          "remote verifiers: " + std::to_string(s.pool.returned) + " batches scored by workers, " +
          std::to_string(s.pool.local) + " locally, " + std::to_string(s.pool.reissued) +
          " re-issued, " + std::to_string(s.pool.workers_lost) + " workers lost, " +
          std::to_string(s.pool.stale) + " stale results dropped, " +
          std::to_string(s.bad_results) + " unusable, " + std::to_string(s.other_session) +
          " from another run, " + std::to_string(s.refused) + " connections refused");
      verifiers_.reset();
      for (const auto& a : actors_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    return lines;
  }

  ~config_cluster_parts() override { close(); }

 private:
  std::shared_ptr<remote_verifier_hub> verifiers_;
  std::shared_ptr<remote_generator_hub> generators_;
  std::vector<caf::actor> actors_;
};

}  // namespace

cluster_factory config_cluster() {
  return [] { return std::unique_ptr<cluster_parts>(new config_cluster_parts()); };
}

}  // namespace adarl
