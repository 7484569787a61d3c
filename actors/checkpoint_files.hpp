#pragma once
// The files of a checkpoint beyond the engine's own (model, optimizer): its manifest,
// the steps it carries, and how a resumed run finds the newest complete one.
//
// A checkpoint OUT/checkpoints/step-V holds the learner engine's files, tracker.json
// (actors/tracker.hpp), carried.cbor (the steps whose generation was complete but that
// were not trained yet: their groups and reports, so that a resumed run trains exactly
// what the uninterrupted one would have), config.json (the run's effective config), and
// last checkpoint.json, the manifest: the version, the last carried step and the size and
// content hash (XXH3-128) of every other file. It is assembled in step-V.partial and
// renamed into place once all of it is on the disk, so a checkpoint without a valid
// manifest is incomplete, and one whose files differ from their hashes is damaged.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/budget_ledger.hpp"
#include "base/result.hpp"
#include "messages/messages.hpp"

namespace adarl {

/// One file a manifest lists.
struct manifest_file_entry {
  std::string name;  ///< Relative to the checkpoint directory.
  uint64_t bytes = 0;
  std::string hash;  ///< base/content_hash.hpp; empty in manifests written before 0.3.
};

/// checkpoint.json.
struct checkpoint_manifest {
  uint64_t version = 0;   ///< Learner version (optimizer steps taken).
  int64_t through = -1;   ///< Last step whose generation the checkpoint holds.
  std::vector<manifest_file_entry> files;  ///< Every other file of the checkpoint.
};

/// Writes DIR/checkpoint.json listing every regular file of DIR (recursively) with its
/// size and content hash; atomic (base/atomic_file.hpp). O(bytes of the files).
result<bool> write_manifest(const std::string& dir, uint64_t version, int64_t through);

/// Reads DIR/checkpoint.json and checks that every file it lists exists with its size
/// and content hash: an error (naming the file) means the checkpoint is incomplete or
/// damaged. O(bytes of the files).
result<checkpoint_manifest> read_manifest(const std::string& dir);

/// Steps generated but not trained when a checkpoint was written.
struct carried_steps {
  std::map<uint64_t, std::vector<train_group>> groups;  ///< By step.
  std::map<uint64_t, step_report> reports;              ///< By step.
};

/// Writes the groups and reports of steps [from, through] (binary, exact floats;
/// atomic). Steps outside the range are left out.
result<bool> write_carried_steps(const std::string& path, const carried_steps& steps,
                                 uint64_t from, int64_t through);

/// Reads write_carried_steps()'s file; a missing, truncated or malformed file is an
/// error naming it.
result<carried_steps> read_carried_steps(const std::string& path);

/// For the carried reports of a checkpoint written before the tracker kept its budget
/// ledger (they have no cumulative totals): fills each report's cumulative samples and
/// tokens from step `version` on, in step order, starting from what the steps before
/// `version` spent (`before`). The last report's own spend and the totals through it;
/// nullopt when no report is carried from `version` on.
std::optional<budget_point> fill_carried_totals(carried_steps& steps, uint64_t version,
                                                budget_totals before);

/// The checkpoint a resumed run continues from. DIR itself when it is a complete
/// checkpoint; else the newest complete one under DIR/checkpoints (the one
/// DIR/checkpoints/latest names when it is complete, otherwise the highest complete
/// step-N). `note` (when given) is set when an incomplete newer checkpoint was passed
/// over, naming it and why. An error names what is missing.
result<std::string> resolve_checkpoint(const std::string& dir, std::string* note = nullptr);

/// Name of the checkpoint directory of a version: step-000042.
std::string checkpoint_name(uint64_t version);

}  // namespace adarl
