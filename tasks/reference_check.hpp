#pragma once
// Issue 22 (silent zeros): items whose reference their verifier cannot use (a math
// solution with no readable answer, python tests not in the cases format) would score 0
// on every completion. These functions find them before a run or `adarl tasks check`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "tasks/dataset.hpp"
#include "tasks/task_item.hpp"
#include "tasks/verifier_registry.hpp"

namespace adarl {

/// One item whose reference its verifier cannot use.
struct unusable_reference {
  std::size_t index = 0;  ///< Position of the item in the list checked.
  std::string why;        ///< verifier::check_reference's reason, or the registry's error.
};

/// Every item of `items` whose verifier (looked up in `registry`) rejects its reference
/// (verifier::check_reference), in item order; an unknown verifier is reported too.
/// Pure apart from what the verifiers' checks do (math: parses each reference, under
/// the GiNaC mutex when it is not a plain number); thread-safe; O(items).
std::vector<unusable_reference> find_unusable_references(const std::vector<task_item>& items,
                                                         const verifier_registry& registry);

/// The report of `found` as dataset error lines, one per item (at most
/// max_dataset_errors, then how many more), each naming FILE:LINE, the id and the
/// verifier: `data.jsonl:7: id "q7": verifier "math": the reference ... cannot be read as
/// math`. lines[i] is the line of items[i] (load_dataset's `lines`); without it the item
/// number stands in ("item 3"). Pure.
std::string describe_unusable(const std::vector<unusable_reference>& found,
                              const std::vector<task_item>& items, const std::string& file,
                              const std::vector<uint32_t>& lines);

/// load_dataset(path, &registry, lines, format) that also refuses unusable references:
/// the items, or an error holding load_dataset's message or describe_unusable's. For the
/// start of a run. When `lines` is given, it receives each item's line (as
/// load_dataset's). Blocks on file I/O; O(file size + items).
result<std::vector<task_item>> load_checked_dataset(const std::string& path,
                                                    const verifier_registry& registry,
                                                    std::vector<uint32_t>* lines = nullptr,
                                                    const dataset_format& format = {});

}  // namespace adarl
