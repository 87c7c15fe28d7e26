// Parsing of command-line values that CLI11 takes as strings, so that a bad value gets the
// project's message (flag, value, what is allowed) and exit code 1 rather than a usage error.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "configs/check.h"
#include "configs/hardware/cluster.h"

namespace zs::cli {

// An integer flag value in [min, max].
Result<std::int64_t> parse_int_flag(const std::string& flag, const std::string& value,
                                    std::int64_t min, std::int64_t max);

// "fp32", "fp16" or "bf16".
Result<configs::Precision> parse_precision_flag(const std::string& value);

// Cluster flags as given: --cluster FILE, or --gpu with --nodes/--gpus-per-node.
struct ClusterFlags {
  std::string cluster_file;
  std::string gpu;
  std::string nodes;
  std::string gpus_per_node;
  bool any() const {
    return !cluster_file.empty() || !gpu.empty() || !nodes.empty() || !gpus_per_node.empty();
  }
};

// The cluster the flags describe; --nodes defaults to 1 and --gpus-per-node to the node's size.
// REQUIRES: flags.any()
Result<configs::Cluster> cluster_from_flags(const ClusterFlags& flags);

}  // namespace zs::cli
