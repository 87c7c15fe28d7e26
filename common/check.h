// ZS_CHECK: invariants whose failure is a bug in zerosim, never a user's mistake.
// A failed check prints file:line and the condition, then aborts. Bad input is reported with
// Status/Result (common/status.h) instead.
#pragma once

namespace zs::internal {
[[noreturn]] void check_failed(const char* file, int line, const char* condition,
                               const char* message);
}  // namespace zs::internal

#define ZS_CHECK(cond) \
  ((cond) ? (void)0 : ::zs::internal::check_failed(__FILE__, __LINE__, #cond, nullptr))
#define ZS_CHECK_MSG(cond, msg) \
  ((cond) ? (void)0 : ::zs::internal::check_failed(__FILE__, __LINE__, #cond, (msg)))
#define ZS_UNREACHABLE() ::zs::internal::check_failed(__FILE__, __LINE__, "unreachable", nullptr)
