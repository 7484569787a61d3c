#pragma once
// Field lists: a record's members named once, in one place, and that list drives the
// record's CAF inspect(), its checkpoint encoding and the part of its metrics line that is
// written as it is (messages/messages.hpp step_report and step_record); a source list
// says where the tracker takes a record's members from. Adding a per-step metric is a
// member and its entries in the lists. Pure: the standard library alone.

#include <functional>
#include <iterator>
#include <tuple>
#include <type_traits>
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

/// Where a record's member comes from in another structure: `from` is a member pointer
/// of the source or a callable taking it (a function of several members).
template <class T, class M, class From>
struct field_source {
  M T::*member;
  From from;
};

template <class T, class M, class From>
constexpr field_source<T, M, From> sourced(M T::*member, From from) {
  return {member, from};
}

/// x.*member = the source's value: a container from a range of another type (an
/// array of counts into a vector), anything else by conversion.
template <class M, class V>
void assign_field(M& to, const V& value) {
  if constexpr (!std::is_same_v<M, V> &&
                requires { to.assign(std::begin(value), std::end(value)); })
    to.assign(std::begin(value), std::end(value));
  else
    to = static_cast<M>(value);
}

/// Sets every member of x that `sources` lists from `source`, in list order.
template <class Sources, class X, class Source>
void fill_from(const Sources& sources, X& x, const Source& source) {
  std::apply(
      [&](const auto&... s) { (assign_field(x.*(s.member), std::invoke(s.from, source)), ...); },
      sources);
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
