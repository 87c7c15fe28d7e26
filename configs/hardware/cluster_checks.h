// What is wrong with a cluster, field by field; shared by validate_cluster and the file loader
// (which turns each field into a JSON path). Internal to zs_hardware.
#pragma once

#include <string>
#include <vector>

#include "configs/hardware/cluster.h"

namespace zs::configs {

struct ClusterProblem {
  // "nodes", "gpus_per_node", "gpu.<GpuSpec field>" or "node.<NodeSpec field>".
  std::string field;
  std::string message;  // states the value found and what is allowed
};

// Every broken rule of validate_cluster (cluster.h), in a fixed order; empty when valid.
std::vector<ClusterProblem> cluster_problems(const Cluster& cluster);

}  // namespace zs::configs
