#pragma once
// result<T>: a value or an error with a readable message; how adarl reports every failure
// a user can cause.

#include <string>
#include <utility>
#include <variant>

namespace adarl {

/// A failure with a readable message; the message names what was wrong and, where it
/// applies, the key, file or line it came from.
struct error {
  std::string message;
};

/// Either a value or an error: the return type of fallible pure functions. E is the
/// error type: `error` by default, or a richer one that carries a code.
/// (std::expected is C++23; g++ 12 in C++20 mode does not have it.)
template <class T, class E = error>
class result {
 public:
  result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  result(E e) : v_(std::move(e)) {}                  // NOLINT: implicit by design

  /// True when a value is held.
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  /// The value; precondition: ok().
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; precondition: !ok().
  const E& err() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

}  // namespace adarl
