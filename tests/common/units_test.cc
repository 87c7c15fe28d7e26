#include "common/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace zs {
namespace {

TEST(Units, FormatBytesPicksBinaryUnit) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(3 * kMiB / 2), "1.5 MiB");
  EXPECT_EQ(format_bytes(kGiB), "1.00 GiB");
  EXPECT_EQ(format_bytes(-2 * kGiB), "-2.00 GiB");
  EXPECT_EQ(format_bytes(3 * kTiB), "3.00 TiB");
}

TEST(Units, FormatGroupedInsertsCommas) {
  EXPECT_EQ(format_grouped(124439808), "124,439,808");
  EXPECT_EQ(format_grouped(999), "999");
  EXPECT_EQ(format_grouped(-1000), "-1,000");
  EXPECT_EQ(format_grouped(INT64_MIN), "-9,223,372,036,854,775,808");
}

TEST(Units, FormatDoubleRoundTrips) {
  EXPECT_EQ(format_double(0.9), "0.9");
  EXPECT_EQ(format_double(1e-8), "1e-08");
  EXPECT_EQ(format_double(5e8), "5e+08");
  EXPECT_EQ(format_double(0.1 + 0.2), "0.30000000000000004");
}

// The fewest %g digits that read back, found by trying every precision: what format_double
// prints, on random bit patterns (every exponent) and on short decimals.
TEST(Units, FormatDoubleIsTheShortestPercentGThatReadsBack) {
  auto reference = [](double v) {
    char buf[64];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
    return std::string(buf);
  };
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    ASSERT_EQ(format_double(v), reference(v)) << bits;
    const double decimal = static_cast<double>(rng() % 100000) * std::pow(10.0, (i % 40) - 20);
    ASSERT_EQ(format_double(decimal), reference(decimal)) << decimal;
  }
  for (double v :
       {0.0, -0.0, 1.0, 2.0, 0.5, 1e300, 5e-324, 2.2250738585072014e-308, 9007199254740993.0}) {
    EXPECT_EQ(format_double(v), reference(v)) << v;
  }
}

TEST(Units, FormatCountIsShort) {
  EXPECT_EQ(format_count(124439808), "124.4M");
  EXPECT_EQ(format_count(6738415616), "6.74B");
}

}  // namespace
}  // namespace zs
