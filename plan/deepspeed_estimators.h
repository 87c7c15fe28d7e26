// DeepSpeed's own model-state memory estimators, reproduced to the byte, as a cross-check for
// zerosim's memory model (which follows what DeepSpeed actually allocates, not these estimates).
//
// Source: DeepSpeed 0.19.6 (deepspeedai/DeepSpeed HEAD edaa7221), the functions
// estimate_zero2_model_states_mem_needs{,_all_cold,_all_live} in
// deepspeed/runtime/zero/stage_1_and_2.py and estimate_zero3_model_states_mem_needs{,_all_cold,
// _all_live} and model_to_params in deepspeed/runtime/zero/stage3.py. The formulas agree with
// ../shared/reference/deepspeed_facts.md section 1.2 (written at 38327e07, ~0.16.4; the functions
// are unchanged since); only its date for PR #5099 (2024-02, when it was opened) differs from
// the merge, 2024-06-04.
// ZeRO-1 has no estimator of its own; DeepSpeed users run the ZeRO-2 one.
//
// Notation: P = total_params, L = largest_layer_params, gpn = num_gpus_per_node,
// N = num_gpus_per_node * num_nodes, abf = additional_buffer_factor. "/" below is real division;
// floor(...) is where DeepSpeed writes int(...). DeepSpeed's "GPU" numbers never include abf,
// activations or buffers; its "CPU" numbers are per node and always include abf.
//
// The estimators take P and L as numbers; the _all_live variants derive them from an nn.Module
// with model_to_params: P = sum of numel over parameters with distinct data_ptr() (tied weights
// once; note that meta-device parameters all have data_ptr 0 and so collapse into one), L = max
// over modules of the numel the module owns directly (parameters(recurse=False)). zerosim computes
// the same two numbers from a model spec as models::parameter_count and
// models::largest_module_params (models/parameters.h).
#pragma once

#include <cstdint>
#include <string>

#include "common/units.h"

namespace zs::plan {

// Beyond this many parameters floor(18 * P / N) in integers may differ from Python's
// int(18 * P / N), which rounds the quotient to a double first (exact while 18 * P < 2^53).
inline constexpr std::int64_t kMaxEstimatorParams = ((std::int64_t{1} << 53) - 1) / 18;

// The keyword arguments of DeepSpeed's estimators, with DeepSpeed's defaults.
struct DsEstimatorInputs {
  std::int64_t total_params = 0;          // P (elements)
  std::int64_t largest_layer_params = 0;  // L (elements); ZeRO-3 only
  std::int64_t num_gpus_per_node = 1;
  std::int64_t num_nodes = 1;
  double additional_buffer_factor = 1.5;
  bool cpu_offload = true;         // "offload_optimizer": {"device": "cpu"}
  bool cpu_offload_params = true;  // ZeRO-3 only: "offload_param": {"device": "cpu"}
  bool zero_init = true;           // ZeRO-3 only: the model is built under deepspeed.zero.Init
};

// What DeepSpeed's estimators return (they return the tuple (cpu_mem, gpu_mem[, ...]) in bytes).
struct DsModelStatesBytes {
  Bytes gpu_bytes = 0;  // per GPU
  Bytes cpu_bytes = 0;  // per node
};

// estimate_zero2_model_states_mem_needs (stage_1_and_2.py). Reads total_params,
// num_gpus_per_node, num_nodes, additional_buffer_factor and cpu_offload.
//   cpu_offload:  gpu = 2P
//                 cpu = P * max(4N, 16) * abf          (N is the total GPU count, not gpn: with
//                                                       several nodes this grows with the cluster)
//   no offload:   gpu = 2P + floor(18P / N)            (2 = fp16 params; 18 = fp16 grads 2 + fp32
//                                                       grads 4 + fp32 params 4 + Adam m,v 8)
//                 cpu = P * 4 * gpn * abf              (each local rank loads an fp32 model)
// cpu is truncated to an integer after the multiplication by abf.
// History: DeepSpeed PR #5099 (merged 2024-06-04, first in 0.14.3) changed the no-offload gpu
// term from 4P + floor(16P / N) to the above; docs/code-docs/source/memory.rst still prints the
// old values (15.93GB for 2851M parameters on 8 GPUs, where HEAD prints 11.28GB).
// REQUIRES: 0 <= total_params <= kMaxEstimatorParams, num_gpus_per_node >= 1, num_nodes >= 1,
//           additional_buffer_factor finite and >= 0, the cpu estimate below 2^63 bytes.
DsModelStatesBytes estimate_zero2_model_states_bytes(const DsEstimatorInputs& in);

// estimate_zero3_model_states_mem_needs (stage3.py). With gf = 1 / num_nodes and
// LL = 4L (zero3_largest_layer_bytes: the fp16 parameter and gradient of the largest layer):
//   offload optimizer + params:  gpu = LL
//                                cpu = P * 18 * gf * abf                   (zero_init)
//                                cpu = P * max(4 * gpn, 18 * gf) * abf     (no zero_init)
//   offload optimizer only:      gpu = LL + floor(2P / N)
//                                cpu = P * 16 * gf * abf                   (zero_init)
//                                cpu = P * max(4 * gpn, 16 * gf) * abf     (no zero_init)
//   no offload:                  gpu = LL + floor(18P / N)
//                                cpu = L * 4 * gpn * abf                   (zero_init)
//                                cpu = P * 4 * gpn * abf                   (no zero_init)
// Without cpu_offload DeepSpeed ignores cpu_offload_params (its _all_cold table skips that
// combination); so does this function. The products are evaluated in DeepSpeed's order, in
// doubles, so that cpu truncates exactly as Python's int() does.
// REQUIRES: 0 <= total_params, largest_layer_params <= kMaxEstimatorParams,
//           num_gpus_per_node >= 1, num_nodes >= 1, additional_buffer_factor finite and >= 0,
//           the cpu estimate below 2^63 bytes.
DsModelStatesBytes estimate_zero3_model_states_bytes(const DsEstimatorInputs& in);

// The third value estimate_zero3_model_states_mem_needs returns: 4 * largest_layer_params bytes.
// REQUIRES: 0 <= largest_layer_params <= kMaxEstimatorParams
Bytes zero3_largest_layer_bytes(std::int64_t largest_layer_params);

// How "cpu" is printed in the Options column. DeepSpeed formats f'{OffloadDeviceEnum.cpu:4}', a
// (str, Enum) member: Python <= 3.10 prints its value padded ("cpu "), as in DeepSpeed's docs;
// Python >= 3.11 formats enums with mixed-in types by str(), "OffloadDeviceEnum.cpu".
enum class DsEnumFormat { kPython310, kPython311 };

// One row of the _all_cold table: f" {cpu/2**30:7.2f}GB | {gpu/2**30:6.2f}GB | {options}".
// "GB" there is GiB, rounded to two decimals as printf("%.2f") rounds.
std::string format_ds_estimate_row(const DsModelStatesBytes& bytes, const std::string& options);

// The text estimate_zero2_model_states_mem_needs_all_cold prints (each line ends in '\n'): a
// header and one row per cpu_offload in (true, false). in.cpu_offload is not read.
// REQUIRES: as estimate_zero2_model_states_bytes for both values of cpu_offload.
std::string zero2_all_cold_report(const DsEstimatorInputs& in,
                                  DsEnumFormat format = DsEnumFormat::kPython310);

// The text estimate_zero3_model_states_mem_needs_all_cold prints: a header and six rows,
// (offload_param, offload_optimizer) in (cpu, cpu), (none, cpu), (none, none), each with
// zero_init 1 then 0. The offload flags and zero_init of `in` are not read.
// REQUIRES: as estimate_zero3_model_states_bytes for every row.
std::string zero3_all_cold_report(const DsEstimatorInputs& in,
                                  DsEnumFormat format = DsEnumFormat::kPython310);

}  // namespace zs::plan
