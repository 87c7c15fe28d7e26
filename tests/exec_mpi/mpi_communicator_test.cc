// MpiCommunicator under mpirun (registered for 1 to 4 ranks): every collective's result on every
// rank equals the single-process reference of exec/communicator.h to the bit. Each rank builds
// every rank's input (tests/exec/communicator_test_util.h), so it can compute the reference
// itself. Tests call the collectives in the same order on every rank whatever they find, so a
// failed expectation cannot leave a rank waiting; only rank 0 prints.
#include "exec/mpi/mpi_communicator.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>

#include "tests/exec/communicator_test_util.h"
#include "tests/exec_mpi/mpi_test_main.h"

namespace zs::exec {
namespace {

using plan::Dtype;

Communicator& comm() { return testing::mpi_comm(); }

constexpr Dtype kDtypes[] = {Dtype::kFp32, Dtype::kBf16, Dtype::kFp16, Dtype::kFp64, Dtype::kU8};
// Empty, fewer elements than ranks, uneven chunks, and a buffer of several MB.
constexpr std::int64_t kCounts[] = {0, 1, 3, 7, 1000, (1 << 20) + 3};

TEST(MpiCommunicator, KnowsItsRankAndGroup) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(comm().rank(), rank);
  EXPECT_EQ(comm().size(), size);
}

TEST(MpiCommunicator, AllReduceIsTheReferenceOnEveryRank) {
  const int n = comm().size(), me = comm().rank();
  for (Dtype d : kDtypes) {
    for (std::int64_t count : kCounts) {
      auto mine = testing::rank_buffer(me, count, d);
      const Status s = comm().all_reduce(mine.data(), count, d);
      EXPECT_TRUE(s.is_ok()) << s.message();
      auto all = testing::all_rank_buffers(n, count, d);
      reference_all_reduce(all, count, d);
      EXPECT_TRUE(mine == all[me]) << plan::dtype_name(d) << " count " << count;
    }
  }
}

TEST(MpiCommunicator, ReduceScatterLeavesEachRankItsReferenceBlock) {
  const int n = comm().size(), me = comm().rank();
  for (Dtype d : kDtypes) {
    for (std::int64_t count : kCounts) {
      if (count > 1000) continue;  // n blocks of it
      auto mine = testing::rank_buffer(me, n * count, d);
      const Status s = comm().reduce_scatter(mine.data(), count, d);
      EXPECT_TRUE(s.is_ok()) << s.message();
      auto all = testing::all_rank_buffers(n, n * count, d);
      reference_reduce_scatter(all, count, d);
      const Bytes e = plan::dtype_size(d);
      const auto block = [&](const std::vector<std::byte>& b) {
        return std::vector<std::byte>(b.begin() + me * count * e, b.begin() + (me + 1) * count * e);
      };
      EXPECT_TRUE(block(mine) == block(all[me])) << plan::dtype_name(d) << " count " << count;
    }
  }
}

TEST(MpiCommunicator, AllGatherGivesEveryRankEveryBlock) {
  const int n = comm().size(), me = comm().rank();
  for (Dtype d : kDtypes) {
    for (std::int64_t count : {0, 1, 5, 4099}) {
      auto mine = testing::rank_buffer(me, n * count, d);
      const Status s = comm().all_gather(mine.data(), count, d);
      EXPECT_TRUE(s.is_ok()) << s.message();
      auto all = testing::all_rank_buffers(n, n * count, d);
      reference_all_gather(all, count, d);
      EXPECT_TRUE(mine == all[me]) << plan::dtype_name(d) << " count " << count;
    }
  }
}

TEST(MpiCommunicator, ReduceChangesOnlyTheRootAndBroadcastCopiesIt) {
  const int n = comm().size(), me = comm().rank();
  const std::int64_t count = 777;
  for (int root : {0, n - 1}) {
    auto mine = testing::rank_buffer(me, count, Dtype::kBf16);
    const auto before = mine;
    const Status s = comm().reduce(mine.data(), count, Dtype::kBf16, root);
    EXPECT_TRUE(s.is_ok()) << s.message();
    auto all = testing::all_rank_buffers(n, count, Dtype::kBf16);
    reference_all_reduce(all, count, Dtype::kBf16);
    EXPECT_TRUE(mine == (me == root ? all[me] : before)) << "root " << root;
    const Status b = comm().broadcast(mine.data(), count, Dtype::kBf16, root);
    EXPECT_TRUE(b.is_ok()) << b.message();
    EXPECT_TRUE(mine == all[root]) << "root " << root;
  }
}

// Chunks that differ in size by one element, each sent in many 6-byte messages: every rank makes
// the same number of calls per hop, so the messages pair up (and the sums are the reference's).
TEST(MpiCommunicator, ChunksLargerThanOneMessageGoInPiecesThatPairUp) {
  auto small = make_mpi_communicator(6);
  ASSERT_TRUE(small.ok());
  Communicator& c = **small;
  const int n = c.size(), me = c.rank();
  for (Dtype d : kDtypes) {
    const std::int64_t count = 1000;  // uneven over 3 ranks; 2 or 4 bytes per element
    auto mine = testing::rank_buffer(me, count, d);
    EXPECT_TRUE(c.all_reduce(mine.data(), count, d).is_ok());
    auto all = testing::all_rank_buffers(n, count, d);
    reference_all_reduce(all, count, d);
    EXPECT_TRUE(mine == all[me]) << plan::dtype_name(d);
    auto blocks = testing::rank_buffer(me, n * 7, d);
    EXPECT_TRUE(c.all_gather(blocks.data(), 7, d).is_ok());
    auto gathered = testing::all_rank_buffers(n, n * 7, d);
    reference_all_gather(gathered, 7, d);
    EXPECT_TRUE(blocks == gathered[me]) << plan::dtype_name(d);
  }
}

TEST(MpiCommunicator, BadArgumentsAreStatusesOnEveryRank) {
  std::vector<std::byte> b(8);
  const Status root = comm().broadcast(b.data(), 2, Dtype::kFp32, comm().size());
  EXPECT_NE(
      root.message().find("broadcast: root " + std::to_string(comm().size()) + " is not a rank"),
      std::string::npos)
      << root.message();
  const Status dtype = comm().all_reduce(b.data(), 2, static_cast<Dtype>(9));
  EXPECT_NE(dtype.message().find("dtype 9"), std::string::npos) << dtype.message();
}

}  // namespace
}  // namespace zs::exec
