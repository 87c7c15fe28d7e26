// NCCL's cost model in closed form.
#include "sim/collective_cost.h"

#include <gtest/gtest.h>

namespace zs::sim {
namespace {

using kernels::Collective;

CostProfile h100() {
  auto c = configs::make_cluster("h100", 1, 8);
  EXPECT_TRUE(c.ok());
  return default_cost_profile(*c);
}

TEST(CollectiveCost, RingAllReduceIsTwoNMinusOneOverNTimesSOverBPlusLatency) {
  const CostProfile p = h100();
  const GroupTopology t = group_topology(8, 8);
  const Bytes s = 4LL << 30;  // large: Simple ring wins
  const CollectiveEstimate e = estimate_collective(Collective::kAllReduce, s, t, p);
  EXPECT_EQ(e.algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(e.protocol, NcclProtocol::kSimple);
  const double b = p.nvlink_allreduce_busbw_bytes_per_s;
  // NCCL tuning.cc: baseLat Ring/Simple 8.4 us + 2(n-1) steps x NVLink hwLat 3.4 us.
  const double latency = (8.4 + 14 * 3.4) * 1e-6;
  EXPECT_NEAR(e.seconds(), latency + 2.0 * 7 / 8 * static_cast<double>(s) / b, 1e-9);
}

TEST(CollectiveCost, SmallMessagesPayLatencyWithTheLowLatencyProtocol) {
  const CostProfile p = h100();
  const CollectiveEstimate e =
      estimate_collective(Collective::kAllReduce, 1024, group_topology(8, 8), p);
  EXPECT_EQ(e.protocol, NcclProtocol::kLL);
  EXPECT_NEAR(e.latency_s, (6.6 + 14 * 0.6) * 1e-6, 1e-12);
  EXPECT_GT(e.latency_s, 10 * e.transfer_s);
}

TEST(CollectiveCost, HierarchicalAllReduceAcrossNodesIsBoundByTheNics) {
  const CostProfile p = h100();
  const GroupTopology t = group_topology(32, 8);
  EXPECT_EQ(t.nodes, 4);
  const Bytes s = 8LL << 30;
  const CollectiveEstimate e = estimate_collective(Collective::kAllReduce, s, t, p);
  ASSERT_EQ(e.algorithm, NcclAlgorithm::kRing);
  ASSERT_EQ(e.protocol, NcclProtocol::kSimple);
  const double bus = std::min(p.nvlink_ring_busbw_bytes_per_s, 8 * p.nic_busbw_bytes_per_s);
  // 62 ring steps, 6 of them between nodes (2 per node boundary), x1.4 for multi-node Simple.
  const double latency = (8.4 + 56 * 3.4 + 6 * 14.0) * 1.4 * 1e-6;
  EXPECT_NEAR(e.seconds(), latency + 2.0 * 31 / 32 * static_cast<double>(s) / bus, 1e-9);
  // Fewer NICs make it slower, in proportion once they are the bottleneck.
  CostProfile slow = p;
  slow.nics_per_node = 2;
  const CollectiveEstimate e2 = estimate_collective(Collective::kAllReduce, s, t, slow);
  EXPECT_NEAR(e2.transfer_s / e.transfer_s, bus / (2 * p.nic_busbw_bytes_per_s), 0.02);
}

TEST(CollectiveCost, AllGatherAndReduceScatterMoveHalfAnAllReduce) {
  const CostProfile p = h100();
  const GroupTopology t = group_topology(8, 8);
  const Bytes s = 1LL << 30;
  const double ag = estimate_collective(Collective::kAllGather, s, t, p).transfer_s;
  const double rs = estimate_collective(Collective::kReduceScatter, s, t, p).transfer_s;
  EXPECT_DOUBLE_EQ(ag, rs);
  EXPECT_NEAR(ag, 7.0 / 8 * static_cast<double>(s) / p.nvlink_ring_busbw_bytes_per_s, 1e-12);
}

TEST(CollectiveCost, OneRankMovesNothing) {
  const CostProfile p = h100();
  EXPECT_EQ(estimate_collective(Collective::kAllReduce, 1 << 20, group_topology(1, 8), p).seconds(),
            0.0);
}

}  // namespace
}  // namespace zs::sim
