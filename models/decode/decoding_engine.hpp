#pragma once
// The generation_engine of a policy behind the continuous-batching decoder, shared by
// the built-in transformer (models/decode/torch_generator.cpp) and Hugging Face models
// (models/decode/hf_generator.cpp): admission, stepping, versions and weights; the model kind
// says how a weight snapshot is checked and loaded. Internal (LibTorch).

#include <optional>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "models/decode/decoder.hpp"
#include "models/weights/snapshot.hpp"

namespace adarl {

/// generation_engine over one decoder. Each result carries the version its row was
/// admitted under; load() swaps the weights under rows in flight (the decoder shares the
/// model). Not thread-safe: one owner.
class decoding_engine : public generation_engine {
 public:
  uint32_t capacity() const override { return decoder_.capacity(); }
  uint32_t active() const override { return decoder_.active(); }
  void admit(generation_job job) override;
  void step(std::vector<generation_result>& out) override;
  /// Loads a weight_snapshot (another engine kind's weights are refused); the model is
  /// unchanged on error.
  result<bool> load(const weights_ptr& weights) override;
  uint64_t version() const override { return version_; }
  /// Decodes a snapshot and checks it against the model's shape now, so that a bad copy
  /// is refused before it is ever loaded.
  result<weights_ptr> weights_from_bytes(std::string_view bytes, uint64_t version) const override;

 protected:
  /// `name` prefixes every error ("torch generator: ...").
  decoding_engine(std::string name, decoder d, bool greedy, uint64_t version);

  /// Whether `snapshot` has exactly the model's tensors and shapes.
  virtual result<bool> fits(const weight_snapshot& snapshot) const = 0;
  /// Copies `snapshot` into the model; unchanged on error.
  virtual result<bool> load_into(const weight_snapshot& snapshot) = 0;

 private:
  struct row_info {
    uint64_t ticket = 0;
    uint64_t version = 0;  ///< Version at admission.
  };

  std::string name_;
  bool greedy_;
  uint64_t version_;
  decoder decoder_;
  std::vector<row_info> rows_;  ///< Per slot.
  std::vector<decoded_row> done_;
};

/// The first problem of a generator's slot count and sampling settings, or nullopt.
std::optional<std::string> sampling_problem(uint32_t capacity, const sampling_params& s);

}  // namespace adarl
