#include "configs/ds_version.h"

#include <gtest/gtest.h>

namespace zs::configs {
namespace {

TEST(DsVersion, ParsesAndOrders) {
  auto v = parse_ds_version("0.16.4");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (DsVersion{0, 16, 4}));
  EXPECT_LT(*v, kPydanticPrecision);
  EXPECT_EQ(parse_ds_version("0.18")->str(), "0.18.0");
  EXPECT_EQ(parse_ds_version("0.19.9")->str(), "0.19.9");
}

TEST(DsVersion, RejectsWhatItDoesNotReproduce) {
  for (const char* bad : {"", "x", "0.9.0", "1.0.0", "0.16.", "0.16.4.1", "0..4", "0.20.0"}) {
    auto v = parse_ds_version(bad);
    EXPECT_FALSE(v.ok()) << bad;
    if (!v.ok()) {
      EXPECT_NE(v.status().message().find("--ds-version"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace zs::configs
