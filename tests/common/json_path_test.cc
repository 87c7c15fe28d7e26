// Parsing JSON paths, the inverse of child_path / index_path.
#include "common/json_path.h"

#include <gtest/gtest.h>

namespace zs::json {
namespace {

TEST(JsonPath, ParsesWhatChildAndIndexPathWrite) {
  for (const std::string& path :
       {std::string("zero_optimization.offload_optimizer.device"),
        std::string("optimizer.params.betas[1]"), child_path("a", "odd.key"),
        child_path(child_path("", "quo\"te"), "x"), index_path("a", 12)}) {
    auto steps = parse_path(path);
    ASSERT_TRUE(steps.ok()) << path << ": " << steps.status().message();
    EXPECT_EQ(path_of(*steps), path);
  }
  auto s = parse_path("optimizer.params.betas[1]");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 4u);
  EXPECT_TRUE((*s)[3].is_index);
  EXPECT_EQ((*s)[3].index, 1u);
}

TEST(JsonPath, RejectsMalformedPaths) {
  for (const char* bad : {"", ".a", "a..b", "a.", "a[", "a[x]", "a[\"k\"", "a b", "a]"}) {
    auto s = parse_path(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find("is not a JSON path"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace zs::json
