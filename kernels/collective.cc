#include "kernels/collective.h"

namespace zs::kernels {

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
  }
  return "?";
}

double bus_factor(Collective c, int n) {
  if (n <= 1) return 0.0;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
      return static_cast<double>(n - 1) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
      return 1.0;
  }
  return 0.0;
}

int ring_steps(Collective c, int n) {
  if (n <= 1) return 0;
  return c == Collective::kAllReduce ? 2 * (n - 1) : n - 1;
}

}  // namespace zs::kernels
