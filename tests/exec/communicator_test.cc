// The collectives' contract on one process: the reference's ring order and the group of one.
#include "exec/communicator.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tests/exec/communicator_test_util.h"

namespace zs::exec {
namespace {

using plan::Dtype;
using testing::buffer_of;
using testing::decode;

TEST(Communicator, ChunksCoverTheBufferInOrderUnevenAndEmptyOnesIncluded) {
  for (std::int64_t count : {0, 1, 2, 5, 7, 1000}) {
    for (int n : {1, 2, 3, 4, 8}) {
      std::int64_t next = 0;
      for (int c = 0; c < n; ++c) {
        const Chunk ch = ring_chunk(count, n, c);
        EXPECT_EQ(ch.begin, next);
        EXPECT_LE(ch.end - ch.begin, count / n + 1);
        next = ch.end;
      }
      EXPECT_EQ(next, count);
    }
  }
}

// 2048 + 1 + 1 in fp16 (spacing 2 above 2048): the ring order decides the result. One element
// on three ranks lies in chunk 2 (chunks 0 and 1 are empty), which starts on rank 0 and travels
// 0, 1, 2: ((x0 + x1) + x2).
TEST(Communicator, TheSumFollowsTheRingAndRoundsAtEveryHop) {
  std::vector<std::vector<std::byte>> b = {
      buffer_of(Dtype::kFp16, {1}), buffer_of(Dtype::kFp16, {1}), buffer_of(Dtype::kFp16, {2048})};
  reference_all_reduce(b, 1, Dtype::kFp16);
  // (1 + 1) + 2048 = 2050 exactly.
  for (const auto& r : b) EXPECT_EQ(decode(r, Dtype::kFp16, 0), 2050.0f);
  std::vector<std::vector<std::byte>> c = {
      buffer_of(Dtype::kFp16, {2048}), buffer_of(Dtype::kFp16, {1}), buffer_of(Dtype::kFp16, {1})};
  reference_all_reduce(c, 1, Dtype::kFp16);
  // (2048 + 1) + 1: each hop rounds back to 2048 (a tie, to even).
  for (const auto& r : c) EXPECT_EQ(decode(r, Dtype::kFp16, 0), 2048.0f);
}

TEST(Communicator, ExactValuesSumExactlyAndEveryRankAgrees) {
  for (Dtype d : {Dtype::kFp32, Dtype::kBf16, Dtype::kFp16, Dtype::kFp64}) {
    for (int n : {2, 3, 4}) {
      std::vector<std::vector<std::byte>> b;
      for (int r = 0; r < n; ++r) b.push_back(buffer_of(d, {1.0f * r, 2.0f, -0.5f * r, 8.0f}));
      reference_all_reduce(b, 4, d);
      for (int r = 1; r < n; ++r) EXPECT_EQ(b[r], b[0]) << plan::dtype_name(d) << " n " << n;
      EXPECT_EQ(decode(b[0], d, 0), n * (n - 1) / 2.0f) << plan::dtype_name(d);
      EXPECT_EQ(decode(b[0], d, 1), 2.0f * n) << plan::dtype_name(d);
      EXPECT_EQ(decode(b[0], d, 2), -0.25f * n * (n - 1)) << plan::dtype_name(d);
      EXPECT_EQ(decode(b[0], d, 3), 8.0f * n) << plan::dtype_name(d);
    }
  }
}

TEST(Communicator, U8FlagsCombineWithMax) {
  // DeepSpeed's overflow flag: a ByteTensor all-reduced with ReduceOp.MAX.
  for (int n : {2, 3, 4}) {
    std::vector<std::vector<std::byte>> b;
    for (int r = 0; r < n; ++r) {
      b.push_back({std::byte{0}, std::byte(r == 1 ? 1 : 0), std::byte(200 + r), std::byte{7}});
    }
    reference_all_reduce(b, 4, Dtype::kU8);
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(b[r], (std::vector<std::byte>{std::byte{0}, std::byte{1}, std::byte(200 + n - 1),
                                              std::byte{7}}))
          << "n " << n << " rank " << r;
    }
  }
}

TEST(Communicator, ReduceScatterLeavesEachRankItsBlockOfTheAllReduce) {
  for (Dtype d : {Dtype::kFp32, Dtype::kBf16, Dtype::kFp16}) {
    const int n = 3;
    const std::int64_t count = 5;
    auto blocks = testing::all_rank_buffers(n, n * count, d);
    auto whole = blocks;
    reference_reduce_scatter(blocks, count, d);
    // The all-reduce of the same buffers, chunked by blocks, sums each block in the same order.
    for (int c = 0; c < n; ++c) {
      std::vector<std::vector<std::byte>> one;
      const Bytes e = plan::dtype_size(d);
      for (int r = 0; r < n; ++r) {
        one.emplace_back(whole[r].begin() + c * count * e, whole[r].begin() + (c + 1) * count * e);
      }
      // A one-block all-reduce on n ranks chunks the block n ways: compare element sums instead
      // through the definition: rank c's block c is the ring sum starting at rank c+1.
      std::vector<std::byte> acc = one[(c + 1) % n];
      for (int s = 2; s <= n; ++s) add_into(acc.data(), one[(c + s) % n].data(), count, d);
      EXPECT_EQ(std::vector<std::byte>(blocks[c].begin() + c * count * e,
                                       blocks[c].begin() + (c + 1) * count * e),
                acc)
          << plan::dtype_name(d) << " block " << c;
    }
  }
}

TEST(Communicator, AllGatherGivesEveryRankEveryBlock) {
  const int n = 4;
  const std::int64_t count = 3;
  auto b = testing::all_rank_buffers(n, n * count, Dtype::kBf16);
  const auto before = b;
  reference_all_gather(b, count, Dtype::kBf16);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      EXPECT_EQ(
          std::memcmp(b[r].data() + c * count * 2, before[c].data() + c * count * 2, count * 2), 0);
    }
  }
}

TEST(Communicator, TheGroupOfOneLeavesBuffersAsTheyAreAndChecksItsArguments) {
  auto self = make_self_communicator();
  EXPECT_EQ(self->rank(), 0);
  EXPECT_EQ(self->size(), 1);
  auto b = testing::rank_buffer(0, 10, Dtype::kFp32);
  const auto before = b;
  EXPECT_TRUE(self->all_reduce(b.data(), 10, Dtype::kFp32).is_ok());
  EXPECT_TRUE(self->reduce_scatter(b.data(), 10, Dtype::kFp32).is_ok());
  EXPECT_TRUE(self->all_gather(b.data(), 10, Dtype::kFp32).is_ok());
  EXPECT_TRUE(self->reduce(b.data(), 10, Dtype::kFp32, 0).is_ok());
  EXPECT_TRUE(self->broadcast(b.data(), 10, Dtype::kFp32, 0).is_ok());
  EXPECT_EQ(b, before);
  const Status bad = self->all_reduce(b.data(), 10, static_cast<Dtype>(9));
  EXPECT_NE(bad.message().find("all_reduce: dtype 9 is not one a collective carries"),
            std::string::npos)
      << bad.message();
  EXPECT_NE(self->reduce(b.data(), 10, Dtype::kFp32, 1).message().find("root 1 is not a rank"),
            std::string::npos);
  EXPECT_NE(self->all_gather(b.data(), -1, Dtype::kFp32).message().find("count -1 is negative"),
            std::string::npos);
}

}  // namespace
}  // namespace zs::exec
