// Status and StatusOr<T>: how structtest reports recoverable failures (unreadable
// files, malformed records, a missing sentence model) without exceptions. A wrong model
// answer is not an error: it is a failing Verdict (see sample.h).
#ifndef STRUCTTEST_STATUS_H_
#define STRUCTTEST_STATUS_H_

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace structtest {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kIoError,
  kUnimplemented,
  kUnavailable,
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return Status(StatusCode::kInvalidArgument, std::move(m));
  }
  static Status NotFound(std::string m) {
    return Status(StatusCode::kNotFound, std::move(m));
  }
  static Status IoError(std::string m) {
    return Status(StatusCode::kIoError, std::move(m));
  }
  static Status Unimplemented(std::string m) {
    return Status(StatusCode::kUnimplemented, std::move(m));
  }
  static Status Unavailable(std::string m) {
    return Status(StatusCode::kUnavailable, std::move(m));
  }
  static Status Internal(std::string m) {
    return Status(StatusCode::kInternal, std::move(m));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message" (LLVM style, context first).
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Holds either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok() && "StatusOr built from an ok Status");
  }
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  // REQUIRES: ok().
  const T& value() const& {
    assert(ok() && "value() on an error StatusOr");
    return std::get<T>(v_);
  }
  T& value() & {
    assert(ok() && "value() on an error StatusOr");
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok() && "value() on an error StatusOr");
    return std::get<T>(std::move(v_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace structtest

#define STRUCTTEST_CONCAT_INNER_(a, b) a##b
#define STRUCTTEST_CONCAT_(a, b) STRUCTTEST_CONCAT_INNER_(a, b)

// Returns the Status of `expr` when it is not ok. Prefixed, so that a program's own
// RETURN_IF_ERROR (or Abseil's) does not collide with this header's.
#define STRUCTTEST_RETURN_IF_ERROR(expr)            \
  do {                                              \
    ::structtest::Status _st_status = (expr);       \
    if (!_st_status.ok()) return _st_status;        \
  } while (0)

#define STRUCTTEST_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                      \
  if (!tmp.ok()) return tmp.status();                     \
  lhs = std::move(tmp).value()

// Evaluates `expr` (a StatusOr<T>) and assigns its value to `lhs` (a declaration or an
// lvalue), or returns its Status when it is not ok.
#define STRUCTTEST_ASSIGN_OR_RETURN(lhs, expr) \
  STRUCTTEST_ASSIGN_OR_RETURN_IMPL_(STRUCTTEST_CONCAT_(_st_statusor_, __LINE__), lhs, expr)

#endif  // STRUCTTEST_STATUS_H_
