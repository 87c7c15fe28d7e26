// The screenshot decoder of the report test, on a 3x3 RGB PNG whose rows use the Sub, Up and
// Paeth filters (made with Python's zlib from known pixels).
#include "tests/cli/png_reader.h"

#include <gtest/gtest.h>

namespace zs::testing {
namespace {

const std::string kPng(
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x03\x00\x00"
    "\x00\x03\x08\x02\x00\x00\x00\xd9\x4a\x22\xe8\x00\x00\x00\x23\x49\x44\x41\x54\x78\x9c\x63"
    "\xfc\xcf\xc0\xc0\x08\xc6\x4c\xdc\x22\x72\x27\x52\x8d\xfe\xff\x67\x60\xf9\xfe\xee\xa9\xcd"
    "\xc2\x17\xdf\x64\x38\x00\x9f\x67\x0c\x4a\x18\x77\x3a\xc5\x00\x00\x00\x00\x49\x45\x4e\x44"
    "\xae\x42\x60\x82",
    92);

TEST(PngReader, UndoesEachFilter) {
  std::string error;
  const auto img = decode_png(kPng, &error);
  ASSERT_TRUE(img.has_value()) << error;
  EXPECT_EQ(img->width, 3);
  EXPECT_EQ(img->height, 3);
  EXPECT_EQ(img->channels, 3);
  const std::vector<std::uint8_t> expected = {255, 0,  0,  0,   255, 0,  0,   0,   255,
                                              10,  20, 30, 200, 100, 50, 255, 255, 255,
                                              1,   2,  3,  4,   5,   6,  250, 128, 7};
  EXPECT_EQ(img->pixels, expected);
}

TEST(PngReader, RejectsWhatIsNotAPng) {
  std::string error;
  EXPECT_FALSE(decode_png("GIF89a", &error).has_value());
  EXPECT_NE(error.find("signature"), std::string::npos);
  EXPECT_FALSE(decode_png(kPng.substr(0, 40), &error).has_value());
}

}  // namespace
}  // namespace zs::testing
