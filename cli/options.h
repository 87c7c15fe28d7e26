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
#include "plan/model_load.h"
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

// The training length a prediction assumes when --seq-len is not given: a common one, not the
// model's context (8K to 128K tokens for recent models, which few train at).
inline constexpr std::int64_t kDefaultSeqLen = 2048;

// What a prediction assumes where the user left the scenario open, applied to `in` and
// `*seq_len` (0: --seq-len not given), each assumption returned as one sentence for the top of
// the output:
// - no --seq-len: kDefaultSeqLen tokens, or the model's context when that is shorter;
// - the config's fp16.enabled or bf16.enabled is "auto" and no --precision: bf16 where the GPU
//   has it, fp16 otherwise. The HF Trainer fills "auto" from --bf16/--fp16 and trains in fp32
//   without either, which --precision fp32 predicts.
// REQUIRES: in.model and in.cluster set.
std::vector<std::string> assume_scenario(const CommonFlags& f, Inputs* in, std::int64_t* seq_len);

// The cost profile that --profile FILE and --kernels eager|fused describe for `cluster`: the
// defaults with the file's fields, then the kernel style; nullopt when neither flag is given.
Result<std::optional<sim::CostProfile>> read_profile_flags(const std::string& profile,
                                                           const std::string& kernels,
                                                           const configs::Cluster& cluster);

// --load-dtype: from_pretrained's dtype for the host memory of the model load
// (plan/model_load.h). kInvalidArgument naming the flag, the value and what is allowed.
inline constexpr const char* kLoadDtypeHelp =
    "from_pretrained's dtype, for the host memory of loading the model: auto (transformers 5's "
    "default: the checkpoint's), fp32 (transformers 4's default), bf16 or fp16";
Result<plan::LoadDtype> parse_load_dtype_flag(const std::string& text);

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
