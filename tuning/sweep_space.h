// The space a sweep explores: its axes (`--vary KEY=V1,V2,...`, one per knob) and the variants
// that give each axis a value. An axis is a config path ("zero_optimization.reduce_bucket_size",
// common/json_path.h syntax) or a shorthand for a setting spread over several keys or outside the
// ds_config:
//   stage          zero_optimization.stage (0..3)
//   micro_batch    the trainer's per-device batch (simulate's --micro-batch: it replaces the
//                  file's train_micro_batch_size_per_gpu and train_batch_size follows)
//   grad_accum     likewise --grad-accum
//   offload        none | optimizer | optimizer+param: offload_optimizer / offload_param to the
//                  CPU (device "cpu"; "none" switches an existing block off)
//   overlap_comm   zero_optimization.overlap_comm
//   checkpointing  HF gradient_checkpointing (a trainer flag, not a ds_config key)
//   precision      fp32 | fp16 | bf16: fp16.enabled and bf16.enabled
// Values are JSON (5e7, true, "cpu"), barewords taken as strings (cpu), or ranges: A..B:xF
// (A, A*F, ... up to B), A..B:+S (A, A+S, ...), A..B (step +1).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_path.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "configs/ds_config_reader.h"
#include "sim/simulate.h"

namespace zs::tuning {

enum class Shorthand {
  kNone,  // a config path
  kStage,
  kMicroBatch,
  kGradAccum,
  kOffload,
  kOverlapComm,
  kCheckpointing,
  kPrecision,
};

struct Axis {
  std::string key;  // as given
  Shorthand shorthand = Shorthand::kNone;
  std::vector<json::PathStep> path;  // the config path, when shorthand == kNone
  std::vector<json::Json> values;    // distinct, in the order given
};

// The most values one range may expand to, and the most variants one sweep may have.
inline constexpr std::int64_t kMaxRangeValues = 10'000;
inline constexpr std::int64_t kMaxVariants = 1'000'000;
// The longest config path an axis may name: components and characters.
inline constexpr std::int64_t kMaxPathDepth = 16;
inline constexpr std::size_t kMaxKeyLength = 256;

// Parses one `--vary` argument. kInvalidArgument whose message starts "--vary SPEC:" and names
// the key, the value and what is allowed (an unknown shorthand, a bad range, a value of the
// wrong type for a shorthand, a repeated value).
Result<Axis> parse_vary(std::string_view spec);

// An axis with its key and values given directly (tune builds its axes this way).
// REQUIRES: key is a shorthand name or a valid path.
Axis make_axis(std::string_view key, std::vector<json::Json> values);

// The shorthand names, for messages.
std::span<const std::string_view> shorthand_names();

// Checks each config-path axis against the base config: every value, set alone, must read with
// no error at its path and the key must be one DeepSpeed knows (configs/ds_config_reader.h).
// Also rejects a key given twice. kInvalidArgument "--vary KEY=VALUE: PATH: what is wrong".
Status check_axes(std::span<const Axis> axes, const json::Document& base,
                  configs::DsVersion version);

// A variant: per axis, the value it takes, or none (the base config's).
struct Variant {
  std::vector<std::optional<json::Json>> values;
};

// Product of the axes' sizes, capped at kMaxVariants + 1.
std::int64_t variant_count(std::span<const Axis> axes);
// kInvalidArgument naming the count when the axes make more than kMaxVariants variants.
Status check_variant_count(std::span<const Axis> axes);
// Every combination, the last axis varying fastest. REQUIRES: variant_count(axes) <= kMaxVariants.
std::vector<Variant> cartesian_variants(std::span<const Axis> axes);

// Applies `v` to a config root and a request (the shorthands outside the ds_config). Returns the
// config paths it wrote, or kInvalidArgument when an edit cannot be made (a parent that is not
// an object, an index past an array's end).
Result<std::vector<std::string>> apply_variant(std::span<const Axis> axes, const Variant& v,
                                               json::Json* root, sim::SimulationRequest* request);

// What makes a checked variant meaningless though DeepSpeed accepts it: a value DeepSpeed
// ignores (an "ignored-*" warning of the check: offload at stage 0, parameter offload below
// stage 3, ...) at or under a path the variant wrote. nullopt when none. An allgather_bucket_size
// that modern PyTorch makes DeepSpeed ignore is not one: such a variant is simulated, and its
// numbers show the knob does nothing.
std::optional<std::string> combination_error(const configs::LoadedConfig& lc,
                                             std::span<const std::string> edited_paths);

// Per axis, the value `v` gives it, or the value it has in the checked config `lc` (the
// effective value: DeepSpeed's default, the resolved "auto"; null when there is none).
std::vector<json::Json> axis_values(std::span<const Axis> axes, const Variant& v,
                                    const configs::LoadedConfig& lc,
                                    const sim::SimulationRequest& request);

// True when two axis values are the same setting (numbers compared by value: 5e7 == 50000000).
bool same_value(const json::Json& a, const json::Json& b);

// A value as a command line writes it: strings bare, numbers shortest.
std::string value_text(const json::Json& v);

}  // namespace zs::tuning
