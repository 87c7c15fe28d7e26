#include "sim/collective_cost.h"

#include <algorithm>
#include <cmath>

namespace zs::sim {
namespace {

using kernels::Collective;

// NCCL src/graph/tuning.cc (NVIDIA/nccl v2.30.7), microseconds, [protocol] = LL, LL128, Simple.
constexpr double kBaseLatRingUs[3] = {6.6, 14.0, 8.4};
constexpr double kBaseLatTreeUs[3] = {6.8, 14.0, 8.4};
constexpr double kNvlinkLatRingUs[3] = {0.6, 1.9, 3.4};
constexpr double kNvlinkLatTreeUs[3] = {0.6, 1.25, 4.0};
constexpr double kNetLatRingUs[3] = {2.7, 4.0, 14.0};
constexpr double kNetLatTreeUs[3] = {5.0, 8.5, 14.0};

int proto_index(NcclProtocol p) { return static_cast<int>(p); }

// The bandwidth a protocol reaches given the Simple bus bandwidth.
double protocol_bw(NcclProtocol p, double simple_bw, const GroupTopology& t,
                   const CostProfile& prof) {
  switch (p) {
    case NcclProtocol::kLL: {
      const int i = t.nodes <= 1 ? 0 : t.nodes == 2 ? 1 : 2;
      return std::min(prof.ll_max_bytes_per_s[i], 0.5 * simple_bw);
    }
    case NcclProtocol::kLL128:
      return 0.92 * simple_bw;
    case NcclProtocol::kSimple:
      return simple_bw;
  }
  return simple_bw;
}

}  // namespace

GroupTopology group_topology(int ranks, int gpus_per_node) {
  GroupTopology t;
  t.ranks = std::max(ranks, 1);
  t.ranks_per_node = std::min(t.ranks, std::max(gpus_per_node, 1));
  t.nodes = (t.ranks + t.ranks_per_node - 1) / t.ranks_per_node;
  return t;
}

std::string_view algorithm_name(NcclAlgorithm a) {
  return a == NcclAlgorithm::kRing ? "ring" : "tree";
}

std::string_view protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL:
      return "LL";
    case NcclProtocol::kLL128:
      return "LL128";
    case NcclProtocol::kSimple:
      return "Simple";
  }
  return "?";
}

double ring_busbw(Collective kind, const GroupTopology& t, const CostProfile& p) {
  const double intra = kind == Collective::kAllReduce && t.nodes == 1
                           ? p.nvlink_allreduce_busbw_bytes_per_s
                           : p.nvlink_ring_busbw_bytes_per_s;
  if (t.nodes == 1) return intra;
  // Every ring crosses each node boundary through one NIC; NCCL runs one ring per NIC, so a
  // node's NICs together bound the bus bandwidth.
  return std::min(p.nvlink_ring_busbw_bytes_per_s, p.nic_busbw_bytes_per_s * p.nics_per_node);
}

CollectiveEstimate estimate_collective(Collective kind, Bytes bytes, const GroupTopology& t,
                                       const CostProfile& prof, NcclAlgorithm algo,
                                       NcclProtocol proto) {
  CollectiveEstimate e;
  e.algorithm = algo;
  e.protocol = proto;
  if (t.ranks <= 1) return e;
  const int pi = proto_index(proto);
  const double simple_bw = ring_busbw(kind, t, prof);
  const double s = static_cast<double>(bytes);
  if (algo == NcclAlgorithm::kRing) {
    const int steps = kernels::ring_steps(kind, t.ranks);
    const int per_boundary = kind == Collective::kAllReduce ? 2 : 1;
    const int inter = std::min(steps, per_boundary * (t.nodes - 1));
    double lat_us =
        kBaseLatRingUs[pi] + (steps - inter) * kNvlinkLatRingUs[pi] + inter * kNetLatRingUs[pi];
    if (kind == Collective::kAllReduce && t.nodes > 1 && proto == NcclProtocol::kSimple) {
      lat_us *= prof.ampere_or_newer ? 1.4 : 1.9;
    }
    e.latency_s = lat_us * 1e-6;
    e.transfer_s = kernels::bus_factor(kind, t.ranks) * s / protocol_bw(proto, simple_bw, t, prof);
  } else {
    const double lat_us =
        kBaseLatTreeUs[pi] + 2 * ((t.ranks_per_node - 1) * kNvlinkLatTreeUs[pi] +
                                  std::log2(static_cast<double>(t.nodes)) * kNetLatTreeUs[pi]);
    e.latency_s = lat_us * 1e-6;
    e.transfer_s = 2 * s / protocol_bw(proto, 0.92 * simple_bw, t, prof);
  }
  return e;
}

CollectiveEstimate estimate_collective(Collective kind, Bytes bytes, const GroupTopology& t,
                                       const CostProfile& prof) {
  CollectiveEstimate best;
  bool have = false;
  const bool tree = kind == Collective::kAllReduce && t.nodes > 1;
  for (NcclAlgorithm a : {NcclAlgorithm::kRing, NcclAlgorithm::kTree}) {
    if (a == NcclAlgorithm::kTree && !tree) continue;
    for (NcclProtocol p : {NcclProtocol::kSimple, NcclProtocol::kLL128, NcclProtocol::kLL}) {
      const CollectiveEstimate e = estimate_collective(kind, bytes, t, prof, a, p);
      if (!have || e.seconds() < best.seconds()) {
        best = e;
        have = true;
      }
    }
  }
  return best;
}

}  // namespace zs::sim
