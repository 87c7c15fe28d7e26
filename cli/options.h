// The flags `check` and `simulate` share, and turning them into check options.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/flags.h"
#include "common/status.h"
#include "configs/check.h"
#include "configs/hardware/cluster.h"
#include "models/model_spec.h"
#include "sim/cost_profile.h"

namespace zs::cli {

struct CommonFlags {
  std::string config;
  std::string world;
  std::string model;
  std::string micro_batch;
  std::string grad_accum;
  std::string precision;
  std::string ds_version;
  ClusterFlags cluster;
  bool json = false;
};

// Adds CONFIG and the shared flags to `cmd` (--json only when `json_flag`).
void add_common_flags(CLI::App* cmd, CommonFlags* f, bool json_flag = true);

// What the flags describe. `cluster` and `model` are set when the flags name them.
struct Inputs {
  configs::CheckOptions options;
  std::optional<configs::Cluster> cluster;
  std::optional<models::ModelSpec> model;
};
Result<Inputs> read_inputs(const CommonFlags& f);

// The cost profile that --profile FILE and --kernels eager|fused describe for `cluster`: the
// defaults with the file's fields, then the kernel style; nullopt when neither flag is given.
Result<std::optional<sim::CostProfile>> read_profile_flags(const std::string& profile,
                                                           const std::string& kernels,
                                                           const configs::Cluster& cluster);

// Prints `s`'s message to stderr; returns exit code 1. With `json` (the command's --json), also
// prints the error as one JSON object on stdout (error_json), so a script reading stdout gets
// one on every path.
int fail(const Status& s, bool json = false);

// {"error": {"code": "invalid_argument" | "not_found" | "io_error" | "parse_error" | "usage",
//            "message": MESSAGE, "exit_code": EXIT_CODE}}, indented as --json output is.
std::string error_json(std::string_view code, const std::string& message, int exit_code);

// Writes `text` to stdout.
void print(const std::string& text);

}  // namespace zs::cli
