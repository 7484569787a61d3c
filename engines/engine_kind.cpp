#include "engines/engine_kind.hpp"

#include <string>

namespace adarl {

static_assert(rows_in_kind_order(engine_kinds),
              "engine_kinds lists the kinds in the order of the enum");

const engine_kind_traits& kind_traits(policy_kind kind) {
  return engine_kinds.at(size_t(kind));
}

std::string_view policy_kind_name(policy_kind kind) { return kind_traits(kind).name; }

result<policy_kind> parse_policy_kind(std::string_view name) {
  std::string names;
  for (const auto& k : engine_kinds) {
    if (k.name == name) return k.kind;
    names += (names.empty() ? "" : &k == &engine_kinds.back() ? " or " : ", ");
    names += k.name;
  }
  return error{"expected " + names + ", got \"" + std::string(name) + "\""};
}

}  // namespace adarl
