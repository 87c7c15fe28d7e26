// common/node_arena.h: a set on an arena behaves as a std::set, nodes are reused.
#include "common/node_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

namespace zs {
namespace {

TEST(NodeArena, ASetOnItMatchesAPlainSetAndReusesNodes) {
  NodeArena arena;
  std::set<std::int64_t, std::less<>, ArenaAllocator<std::int64_t>> on_arena{
      std::less<>{}, ArenaAllocator<std::int64_t>(&arena)};
  std::set<std::int64_t> plain;
  std::mt19937 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t v = rng() % 500;
    if (rng() % 2 == 0) {
      EXPECT_EQ(on_arena.insert(v).second, plain.insert(v).second);
    } else {
      EXPECT_EQ(on_arena.erase(v), plain.erase(v));
    }
    ASSERT_EQ(on_arena.size(), plain.size());
  }
  EXPECT_TRUE(std::equal(on_arena.begin(), on_arena.end(), plain.begin(), plain.end()));
  EXPECT_GT(arena.node_bytes(), sizeof(std::int64_t));  // a tree node, not a value
}

}  // namespace
}  // namespace zs
