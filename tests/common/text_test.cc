#include "common/text.h"

#include <gtest/gtest.h>

namespace zs {
namespace {

TEST(Text, EditDistanceIgnoresCase) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("Stage", "stage"), 0);
  EXPECT_EQ(edit_distance("", "abc"), 3);
}

TEST(Text, ClosestMatchFindsTypos) {
  const std::vector<std::string> keys = {"stage3_param_persistence_threshold",
                                         "stage3_max_live_parameters", "overlap_comm"};
  EXPECT_EQ(closest_match("stage3_param_persitance_threshold", keys),
            "stage3_param_persistence_threshold");
  EXPECT_EQ(closest_match("overlap_com", keys), "overlap_comm");
  EXPECT_EQ(closest_match("_stage3_param_persistence_threshold", keys),
            "stage3_param_persistence_threshold");
  EXPECT_FALSE(closest_match("completely_different", keys).has_value());
}

TEST(Text, ClosestMatchPrefersANameCutShortAndTheSameStart) {
  // "a100-80g" and "h100-80gb" are both one edit from "h100-80g"; its start says which.
  const std::vector<std::string> presets = {"a100-80gb", "a100-80g", "h100-80gb"};
  EXPECT_EQ(closest_match("h100-80g", presets), "h100-80gb");
  const std::vector<std::string> canonical = {"a100-80gb", "h100-80gb-sxm"};
  EXPECT_EQ(closest_match("h100-80g", canonical), "h100-80gb-sxm");  // cut short
  EXPECT_FALSE(closest_match("h1", canonical).has_value());          // too short to say
}

TEST(Text, ClosestMatchIgnoresVeryLongWords) {
  // The search is bounded: a 1 MB key gets no suggestion rather than a 1 MB x 40 table.
  const std::vector<std::string> keys = {"overlap_comm"};
  EXPECT_FALSE(closest_match(std::string(1 << 20, 'o'), keys).has_value());
  EXPECT_FALSE(closest_match("overlap_comm" + std::string(200, 'x'), keys).has_value());
}

TEST(Text, JoinAndLower) {
  const std::vector<std::string> items = {"a", "b", "c"};
  EXPECT_EQ(join(items, ", "), "a, b, c");
  EXPECT_EQ(to_lower("FP16"), "fp16");
}

}  // namespace
}  // namespace zs
