#include "common/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace zs {

std::string format_bytes(Bytes bytes) {
  const char* sign = bytes < 0 ? "-" : "";
  const double v = std::fabs(static_cast<double>(bytes));
  char buf[64];
  if (v >= static_cast<double>(kTiB)) {
    std::snprintf(buf, sizeof buf, "%s%.2f TiB", sign, v / static_cast<double>(kTiB));
  } else if (v >= static_cast<double>(kGiB)) {
    std::snprintf(buf, sizeof buf, "%s%.2f GiB", sign, v / static_cast<double>(kGiB));
  } else if (v >= static_cast<double>(kMiB)) {
    std::snprintf(buf, sizeof buf, "%s%.1f MiB", sign, v / static_cast<double>(kMiB));
  } else if (v >= static_cast<double>(kKiB)) {
    std::snprintf(buf, sizeof buf, "%s%.1f KiB", sign, v / static_cast<double>(kKiB));
  } else {
    std::snprintf(buf, sizeof buf, "%s%.0f B", sign, v);
  }
  return buf;
}

std::string format_grouped(std::int64_t value) {
  // Work on the magnitude as unsigned so INT64_MIN does not overflow.
  const bool negative = value < 0;
  std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(value)
                               : static_cast<std::uint64_t>(value);
  std::string digits = std::to_string(mag);
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string format_count(double value) {
  const double v = std::fabs(value);
  char buf[64];
  if (v >= 1e12) {
    std::snprintf(buf, sizeof buf, "%.3gT", value / 1e12);
  } else if (v >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3gB", value / 1e9);
  } else if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.4gM", value / 1e6);
  } else if (v >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.4gK", value / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", value);
  }
  return buf;
}

std::string format_double(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // The fewest %g digits that read back as `value`. The shortest round-trip digits (to_chars)
  // say where to start: no shorter decimal reads back; %g rounds correctly, which can miss the
  // shortest decimal at a power of two, hence the loop.
  char buf[64];
  const auto shortest = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  int digits = 0;
  for (const char* c = buf; c < shortest.ptr && *c != 'e'; ++c) digits += (*c >= '0' && *c <= '9');
  for (int precision = std::max(1, digits); precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::string format_band(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "±%.0f%%", 100 * fraction);
  return buf;
}

}  // namespace zs
