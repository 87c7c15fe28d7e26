#include "plan/deepspeed_estimators.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/check.h"

namespace zs::plan {
namespace {

void check_inputs(const DsEstimatorInputs& in) {
  ZS_CHECK(in.total_params >= 0 && in.total_params <= kMaxEstimatorParams);
  ZS_CHECK(in.num_gpus_per_node >= 1);
  ZS_CHECK(in.num_nodes >= 1);
  ZS_CHECK(std::isfinite(in.additional_buffer_factor) && in.additional_buffer_factor >= 0);
}

// Python's int() of a non-negative float: truncation. 2^63 is the first double past INT64_MAX.
Bytes truncate_to_bytes(double bytes) {
  ZS_CHECK_MSG(bytes >= 0 && bytes < 9223372036854775808.0,
               "DeepSpeed estimate does not fit in int64 bytes");
  return static_cast<Bytes>(bytes);
}

// Python's int(k * P / N). For k * P < 2^53 the double quotient never rounds up to the next
// integer, so this equals floor division (see kMaxEstimatorParams).
Bytes sharded_bytes(std::int64_t bytes_per_param, std::int64_t params, std::int64_t total_gpus) {
  return bytes_per_param * params / total_gpus;
}

// Python's max(a, b) with a an int and b a float: returns `a` unless b > a. Every product in
// the estimators has operands exact in a double (< 2^53), so one double multiplication rounds
// exactly as Python's float(exact integer product) does.
double python_max(std::int64_t a, double b) { return b > static_cast<double>(a) ? b : a; }

std::string offload_device(bool cpu, DsEnumFormat format) {
  if (!cpu) return "none";
  return format == DsEnumFormat::kPython310 ? "cpu " : "OffloadDeviceEnum.cpu";
}

// The header both _all_cold functions print; Python's int(x / 1e6) for the "M" counts.
std::string report_header(const DsEstimatorInputs& in, bool with_largest_layer) {
  auto millions = [](std::int64_t n) {
    return std::to_string(static_cast<std::int64_t>(static_cast<double>(n) / 1e6));
  };
  std::string s = "Estimated memory needed for params, optim states and gradients for a:\n";
  s += "HW: Setup with " + std::to_string(in.num_nodes) + (in.num_nodes > 1 ? " nodes" : " node") +
       ", " + std::to_string(in.num_gpus_per_node) + (in.num_gpus_per_node > 1 ? " GPUs" : " GPU") +
       " per node.\n";
  s += "SW: Model with " + millions(in.total_params) + "M total params";
  if (with_largest_layer) s += ", " + millions(in.largest_layer_params) + "M largest layer params";
  s += ".\n";
  s += "  per CPU  |  per GPU |   Options\n";
  return s;
}

}  // namespace

DsModelStatesBytes estimate_zero2_model_states_bytes(const DsEstimatorInputs& in) {
  check_inputs(in);
  const std::int64_t total_gpus = in.num_nodes * in.num_gpus_per_node;
  const double p = static_cast<double>(in.total_params);
  const double abf = in.additional_buffer_factor;
  DsModelStatesBytes out;
  if (in.cpu_offload) {
    out.gpu_bytes = 2 * in.total_params;
    const std::int64_t per_param = std::max<std::int64_t>(4 * total_gpus, 16);  // all ints
    out.cpu_bytes = truncate_to_bytes(p * static_cast<double>(per_param) * abf);
  } else {
    out.gpu_bytes = 2 * in.total_params + sharded_bytes(18, in.total_params, total_gpus);
    out.cpu_bytes = truncate_to_bytes(p * 4.0 * static_cast<double>(in.num_gpus_per_node) * abf);
  }
  return out;
}

DsModelStatesBytes estimate_zero3_model_states_bytes(const DsEstimatorInputs& in) {
  check_inputs(in);
  const std::int64_t total_gpus = in.num_nodes * in.num_gpus_per_node;
  const double gpus_factor = 1.0 / static_cast<double>(in.num_nodes);
  const double p = static_cast<double>(in.total_params);
  const double abf = in.additional_buffer_factor;
  const std::int64_t local_copies = 4 * in.num_gpus_per_node;  // fp32 model per local rank
  const Bytes largest_layer = zero3_largest_layer_bytes(in.largest_layer_params);
  DsModelStatesBytes out;
  if (in.cpu_offload) {
    // memory.rst: 16 = fp32 params, grads, momentum, variance (4 each) on the host; 18 adds the
    // offloaded fp16 params.
    const std::int64_t host_bytes_per_param = in.cpu_offload_params ? 18 : 16;
    out.gpu_bytes = largest_layer;
    if (!in.cpu_offload_params) out.gpu_bytes += sharded_bytes(2, in.total_params, total_gpus);
    const double host_per_node = static_cast<double>(host_bytes_per_param) * gpus_factor;
    // zero_init: ((P * k) * gf) * abf in Python's order; without it, each local rank's fp32 copy
    // of the whole model can be the larger term.
    out.cpu_bytes = truncate_to_bytes(
        in.zero_init ? p * static_cast<double>(host_bytes_per_param) * gpus_factor * abf
                     : p * python_max(local_copies, host_per_node) * abf);
  } else {
    out.gpu_bytes = largest_layer + sharded_bytes(18, in.total_params, total_gpus);
    const double params = in.zero_init ? static_cast<double>(in.largest_layer_params) : p;
    out.cpu_bytes = truncate_to_bytes(params * static_cast<double>(local_copies) * abf);
  }
  return out;
}

Bytes zero3_largest_layer_bytes(std::int64_t largest_layer_params) {
  ZS_CHECK(largest_layer_params >= 0 && largest_layer_params <= kMaxEstimatorParams);
  return 4 * largest_layer_params;
}

std::string format_ds_estimate_row(const DsModelStatesBytes& bytes, const std::string& options) {
  // cpu / 2**30 in Python is the correctly rounded quotient; dividing the (rounded) double by a
  // power of two is exact, so it is the same number.
  const double gib = static_cast<double>(kGiB);
  char buf[64];
  std::snprintf(buf, sizeof buf, " %7.2fGB | %6.2fGB | ",
                static_cast<double>(bytes.cpu_bytes) / gib,
                static_cast<double>(bytes.gpu_bytes) / gib);
  return buf + options;
}

std::string zero2_all_cold_report(const DsEstimatorInputs& in, DsEnumFormat format) {
  std::string s = report_header(in, /*with_largest_layer=*/false);
  for (bool cpu_offload : {true, false}) {
    DsEstimatorInputs row = in;
    row.cpu_offload = cpu_offload;
    s += format_ds_estimate_row(estimate_zero2_model_states_bytes(row),
                                "offload_optimizer=" + offload_device(cpu_offload, format)) +
         "\n";
  }
  return s;
}

std::string zero3_all_cold_report(const DsEstimatorInputs& in, DsEnumFormat format) {
  std::string s = report_header(in, /*with_largest_layer=*/true);
  for (bool cpu_offload : {true, false}) {
    for (bool cpu_offload_params : {true, false}) {
      if (!cpu_offload && cpu_offload_params) continue;
      for (bool zero_init : {true, false}) {
        DsEstimatorInputs row = in;
        row.cpu_offload = cpu_offload;
        row.cpu_offload_params = cpu_offload_params;
        row.zero_init = zero_init;
        const std::string options = "offload_param=" + offload_device(cpu_offload_params, format) +
                                    ", offload_optimizer=" + offload_device(cpu_offload, format) +
                                    ", zero_init=" + (zero_init ? "1" : "0");
        s += format_ds_estimate_row(estimate_zero3_model_states_bytes(row), options) + "\n";
      }
    }
  }
  return s;
}

}  // namespace zs::plan
