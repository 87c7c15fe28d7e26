#include "common/units.h"

#include <gtest/gtest.h>

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

TEST(Units, FormatCountIsShort) {
  EXPECT_EQ(format_count(124439808), "124.4M");
  EXPECT_EQ(format_count(6738415616), "6.74B");
}

}  // namespace
}  // namespace zs
