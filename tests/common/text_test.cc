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

TEST(Text, JoinAndLower) {
  const std::vector<std::string> items = {"a", "b", "c"};
  EXPECT_EQ(join(items, ", "), "a, b, c");
  EXPECT_EQ(to_lower("FP16"), "fp16");
}

}  // namespace
}  // namespace zs
