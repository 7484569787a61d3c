#pragma once
// Field lists: a record's members named once, in one place, and that list drives the
// record's CAF inspect(), its checkpoint encoding and the part of its metrics line that is
// written as it is (messages/messages.hpp step_report and step_record). Adding a per-step
// metric is a member and its entry in the list. Pure: the standard library alone.

#include <tuple>
#include <utility>

namespace adarl {

/// What a field's entry says about its uses (bits, combined with |).
enum field_use : unsigned {
  field_optional = 0u,  ///< Absent from stored copies of older versions: default then.
  field_required = 1u,  ///< In every stored copy (checkpoints): missing is an error.
  field_line = 2u,      ///< Written to metrics.jsonl under its name, as it is.
};

/// One entry of a field list: the name in files, the member, its uses.
template <class T, class M>
struct record_field {
  const char* name;
  M T::*member;
  unsigned use;
  bool has(field_use u) const { return (use & u) != 0; }
};

/// An entry of a field list (the member type is deduced).
template <class T, class M>
constexpr record_field<T, M> named(const char* name, M T::*member, unsigned use = field_optional) {
  return {name, member, use};
}

/// Calls f(entry) for every entry of a field list, in order.
template <class Fields, class F>
constexpr void for_each_field(const Fields& fields, F&& f) {
  std::apply([&](const auto&... entry) { (f(entry), ...); }, fields);
}

/// Calls f(head..., x.m1, x.m2, ...) once with every listed member of x, in list order:
/// the shape of a CAF 0.17 inspect().
template <class Fields, class X, class F, class... Head>
decltype(auto) apply_fields(const Fields& fields, X& x, F& f, Head&&... head) {
  return std::apply(
      [&](const auto&... entry) -> decltype(auto) {
        return f(std::forward<Head>(head)..., (x.*(entry.member))...);
      },
      fields);
}

}  // namespace adarl
