#include "tasks/suites.hpp"

#include <algorithm>

#include "tasks/code_suite.hpp"
#include "tasks/general_suite.hpp"
#include "tasks/math_suite.hpp"
#include "tasks/reasoning_suite.hpp"

namespace adarl {
namespace {

std::vector<task_item> generate_mixed(const suite_request& req) {
  using generator = std::vector<task_item> (*)(const suite_request&);
  const generator parts[] = {generate_math, generate_code, generate_general};
  constexpr uint32_t n = 3;
  std::vector<std::vector<task_item>> made;
  for (uint32_t i = 0; i < n; ++i) {
    suite_request sub = req;
    sub.count = req.count / n + (i < req.count % n ? 1 : 0);
    made.push_back(parts[i](sub));
  }
  std::vector<task_item> out;
  out.reserve(req.count);
  for (size_t k = 0; out.size() < req.count; ++k) {
    bool any = false;
    for (auto& part : made)
      if (k < part.size()) {
        out.push_back(std::move(part[k]));
        any = true;
      }
    if (!any) break;
  }
  return out;
}

}  // namespace

std::vector<std::string> suite_names() {
  return {"code", "general", "math", "mixed", "reasoning"};
}

result<std::vector<task_item>> generate_suite(std::string_view name,
                                              const suite_request& req) {
  if (name == "math") return generate_math(req);
  if (name == "code") return generate_code(req);
  if (name == "general") return generate_general(req);
  if (name == "mixed") return generate_mixed(req);
  if (name == "reasoning") return generate_reasoning(req);
  std::string known;
  for (const auto& s : suite_names()) known += (known.empty() ? "" : ", ") + s;
  return error{"unknown suite \"" + std::string(name) + "\" (known: " + known + ")"};
}

}  // namespace adarl
