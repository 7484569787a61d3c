// Policy versions written as Hugging Face directories for an inference server to load
// (models/hf_engines.hpp, make_hf_weight_publisher).
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "base/atomic_file.hpp"
#include "models/weights/hf_policy.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {

namespace fs = std::filesystem;

result<std::function<result<std::string>(const weights_ptr&)>> make_hf_weight_publisher(
    const hf_policy_config& base, const std::string& root, uint32_t keep) {
  // The model on the CPU that each snapshot is copied into and written from.
  auto policy = build_hf_policy(base, torch::Device(torch::kCPU));
  if (!policy) return policy.err();
  std::error_code ec;
  if (!fs::create_directories(root, ec) && ec)
    return error{root + ": cannot create the directory: " + ec.message()};
  struct state {
    hf_policy policy;
    std::string root;
    uint32_t keep;
    std::set<uint64_t> written;
    std::mutex mutex;
  };
  auto s = std::make_shared<state>();
  s->policy = std::move(*policy);
  s->root = root;
  s->keep = std::max<uint32_t>(1, keep);
  return std::function<result<std::string>(const weights_ptr&)>(
      [s](const weights_ptr& w) -> result<std::string> {
        const auto* snap = dynamic_cast<const weight_snapshot*>(w.get());
        if (!snap) return error{"these weights are not a LibTorch snapshot"};
        std::lock_guard lock(s->mutex);
        if (auto ok = load_snapshot(s->policy.model, *snap); !ok) return ok.err();
        const std::string dir = s->root + "/v" + std::to_string(w->version);
        const std::string tmp = staging_path(dir);
        std::error_code ec;
        fs::remove_all(tmp, ec);
        if (!fs::create_directories(tmp, ec) && ec)
          return error{tmp + ": cannot create the directory: " + ec.message()};
        if (auto ok = write_hf_files(s->policy.model, s->policy.source, tmp); !ok)
          return ok.err();
        if (auto ok = sync_tree(tmp); !ok) return ok.err();
        if (auto ok = replace_directory(tmp, dir); !ok) return ok.err();
        s->written.insert(w->version);
        while (s->written.size() > s->keep) {
          fs::remove_all(s->root + "/v" + std::to_string(*s->written.begin()), ec);
          s->written.erase(s->written.begin());
        }
        return fs::absolute(dir, ec).string();
      });
}

}  // namespace adarl
