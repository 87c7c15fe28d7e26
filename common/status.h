// Status and Result<T>: the error vocabulary for bad input.
//
// A Status is either OK or carries a code and a human-readable message that already names the
// file, JSON path, offending value and what is allowed. Library code returns these; only main()
// maps them to exit codes. Broken invariants (bugs) are not Statuses: they are ZS_CHECKs.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "common/check.h"

namespace zs {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input: a config value, a flag, a model file
  kNotFound,         // a file or a named preset does not exist
  kIoError,          // reading or writing failed
  kParseError,       // the text is not the format it claims to be
};

class Status {
 public:
  Status() = default;  // OK
  static Status ok() { return Status(); }
  static Status invalid_argument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status not_found(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status io_error(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
  static Status parse_error(std::string msg) {
    return Status(StatusCode::kParseError, std::move(msg));
  }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<prefix>: <message>".
  Status with_context(const std::string& prefix) const {
    if (is_ok()) return *this;
    return Status(code_, prefix + ": " + message_);
  }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Result<T> holds either a T or a non-OK Status.
template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    ZS_CHECK_MSG(!std::get<Status>(v_).is_ok(), "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok()
  const Status& status() const {
    ZS_CHECK(!ok());
    return std::get<Status>(v_);
  }
  // REQUIRES: ok()
  const T& value() const& {
    ZS_CHECK_MSG(ok(), status().message().c_str());
    return std::get<T>(v_);
  }
  T& value() & {
    ZS_CHECK_MSG(ok(), std::get<Status>(v_).message().c_str());
    return std::get<T>(v_);
  }
  T&& value() && {
    ZS_CHECK_MSG(ok(), std::get<Status>(v_).message().c_str());
    return std::get<T>(std::move(v_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace zs

#define ZS_STATUS_CONCAT_INNER(a, b) a##b
#define ZS_STATUS_CONCAT(a, b) ZS_STATUS_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function if `expr` (a Status) is not OK.
#define ZS_RETURN_IF_ERROR(expr)                \
  do {                                          \
    ::zs::Status zs_status_tmp_ = (expr);       \
    if (!zs_status_tmp_.is_ok()) return zs_status_tmp_; \
  } while (0)

// `lhs = value of expr` (a Result<T>), or returns its Status from the enclosing function.
#define ZS_ASSIGN_OR_RETURN(lhs, expr) \
  ZS_ASSIGN_OR_RETURN_IMPL(ZS_STATUS_CONCAT(zs_result_, __LINE__), lhs, expr)
#define ZS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
