// Collectives as NCCL and nccl-tests define them (NVIDIA/nccl-tests doc/PERFORMANCE.md):
// for a message of S bytes on n ranks, algorithm bandwidth algbw = S / t and bus bandwidth
// busbw = algbw x factor, where factor is what each rank must move relative to S. busbw is
// what nccl-tests print and what effective link figures are quoted in. Shared by sim/ (time
// = S x factor / busbw) and exec/ (the NCCL and MPI wrappers).
#pragma once

#include <string_view>

namespace zs::kernels {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kReduce };

std::string_view collective_name(Collective c);

// The busbw factor: all_reduce 2(n-1)/n; reduce_scatter and all_gather (n-1)/n (with S the
// size of the full, gathered buffer); broadcast and reduce 1. 0 when n = 1 (nothing moves).
double bus_factor(Collective c, int n);

// Ring steps whose latency a collective pays: all_reduce 2(n-1); reduce_scatter, all_gather
// (n-1); broadcast, reduce (n-1) pipeline hops.
int ring_steps(Collective c, int n);

}  // namespace zs::kernels
