// The time of one NCCL collective, with NCCL's own cost model (src/graph/tuning.cc at
// NVIDIA/nccl v2.30.7): for each algorithm (ring; tree for all_reduce across nodes) and protocol
// (LL, LL128, Simple), time = latency + bytes moved / bandwidth, and NCCL runs the fastest.
//
// - Latency: baseLat[algo][proto] plus, per ring step, hwLat[NVLINK] inside a node and
//   hwLat[NET] between nodes; a tree pays 2 x ((local ranks - 1) intra + log2(nodes) inter).
//   Ring all_reduce across nodes with Simple multiplies it by 1.4 (1.9 before Ampere).
// - Bandwidth: the profile's effective bus bandwidth (cost_profile.h), not line rates. One node:
//   the NVLink ring busbw (all_reduce: the measured default, NVLS where the switch has it).
//   Across nodes the ring's slowest hop is the NICs: min(NVLink ring busbw, NICs per node x
//   busbw per NIC). LL reaches min(llMaxBw, busbw / 2), LL128 0.92 busbw, a tree 0.92 busbw.
// - Bytes: a ring moves bus_factor x S (kernels/collective.h); a tree all_reduce 2 S at its
//   bandwidth (tuning.cc converts tree bus to algorithm bandwidth by 1/2).
// A collective spanning several nodes is thus hierarchical: NVLink inside, NICs between.
#pragma once

#include <string_view>

#include "common/units.h"
#include "kernels/collective.h"
#include "sim/cost_profile.h"

namespace zs::sim {

// Where a group of ranks sits: `ranks` in all, `nodes` nodes of up to `gpus_per_node`.
struct GroupTopology {
  int ranks = 1;
  int nodes = 1;
  int ranks_per_node = 1;
};

// A group of `ranks` consecutive ranks on nodes of `gpus_per_node` GPUs.
GroupTopology group_topology(int ranks, int gpus_per_node);

enum class NcclAlgorithm { kRing, kTree };
enum class NcclProtocol { kLL, kLL128, kSimple };
std::string_view algorithm_name(NcclAlgorithm a);
std::string_view protocol_name(NcclProtocol p);

struct CollectiveEstimate {
  double latency_s = 0;
  double transfer_s = 0;  // bytes moved / bandwidth
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  double seconds() const { return latency_s + transfer_s; }
};

// One algorithm and protocol, or nothing moved (0) when the group has one rank.
CollectiveEstimate estimate_collective(kernels::Collective kind, Bytes bytes,
                                       const GroupTopology& topo, const CostProfile& profile,
                                       NcclAlgorithm algorithm, NcclProtocol protocol);

// The fastest algorithm and protocol, as NCCL picks (ties: ring before tree, Simple first).
CollectiveEstimate estimate_collective(kernels::Collective kind, Bytes bytes,
                                       const GroupTopology& topo, const CostProfile& profile);

// The bus bandwidth (bytes/s) of a ring with Simple: what large messages reach.
double ring_busbw(kernels::Collective kind, const GroupTopology& topo, const CostProfile& p);

}  // namespace zs::sim
