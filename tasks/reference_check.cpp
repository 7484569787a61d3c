#include "tasks/reference_check.hpp"

#include <nlohmann/json.hpp>

#include "base/jsonl_text.hpp"
#include "tasks/dataset.hpp"

namespace adarl {

std::vector<unusable_reference> find_unusable_references(const std::vector<task_item>& items,
                                                         const verifier_registry& registry) {
  std::vector<unusable_reference> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto v = registry.find(items[i].verifier);
    if (!v) {
      out.push_back({i, v.err().message});
      continue;
    }
    std::string why;
    try {
      why = (*v)->check_reference(items[i]);
    } catch (...) {  // check_reference promises not to throw; a broken one is reported
      why = "its verifier failed to check it";
    }
    if (!why.empty()) out.push_back({i, std::move(why)});
  }
  return out;
}

std::string describe_unusable(const std::vector<unusable_reference>& found,
                              const std::vector<task_item>& items, const std::string& file,
                              const std::vector<uint32_t>& lines) {
  std::string out;
  std::size_t shown = 0;
  for (const unusable_reference& u : found) {
    if (shown == max_dataset_errors) {
      out += "\n" + file + ": " + std::to_string(found.size() - shown) +
             " more items with unusable references";
      break;
    }
    const std::string where = u.index < lines.size()
                                  ? file + ":" + std::to_string(lines[u.index])
                                  : file + ": item " + std::to_string(u.index + 1);
    const task_item& item = items[u.index];
    out += (out.empty() ? "" : "\n") + where + ": id " + json_quoted(item.id) +
           ": verifier " + json_quoted(item.verifier) + ": " + u.why;
    ++shown;
  }
  return out;
}

result<std::vector<task_item>> load_checked_dataset(const std::string& path,
                                                    const verifier_registry& registry,
                                                    std::vector<uint32_t>* lines_out,
                                                    const dataset_format& format) {
  std::vector<uint32_t> lines;
  auto items = load_dataset(path, &registry, &lines, format);
  if (!items) return items.err();
  const auto found = find_unusable_references(*items, registry);
  if (!found.empty()) return error{describe_unusable(found, *items, path, lines)};
  if (lines_out) *lines_out = std::move(lines);
  return items;
}

}  // namespace adarl
