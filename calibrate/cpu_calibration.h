// CPU calibration: what zerosim's CPU backend takes on this machine, measured with the executor's
// own code, for `zerosim calibrate --backend cpu`.
//
// Every figure is the median of `repeats` timed runs after one untimed warm-up, kept with its
// minimum and maximum (Spread); the whole set runs `rounds` times, one after the other, and each
// figure is the median of the rounds' medians: a shared machine's speed drifts by tens of percent
// over seconds, and one pass of about a second samples one moment of it. How far the rounds
// disagree (each round's speed against their median, over every figure) is the calibration's
// spread, kept in the profile for validate to tell noise from error. What is measured, and the
// profile key it becomes (sim/cost_profile.h):
//   gemm_efficiency   linear_forward + linear_backward (kernels/cpu/linear.h, Eigen, one thread)
//                     on square m = n = k GEMMs of sides 16 to 512, FLOPs over time over the
//                     core's fp32 peak (below)
//   cpu_s_per_unit    every other model op, forward and backward one op at a time, as
//                     exec/model_runner.h runs them, on four small calibration models (GPT-2
//                     and Llama shapes, none of them a zoo model), in sim::cpu_work_units units;
//                     attention as seconds per FLOP plus per score (cpu_attention_pair_s),
//                     least squares over the models' head_dims (16, 32, 64)
//   hbm_efficiency    kernels/cpu/dtype.h's fp32 -> bf16 rounding (read + write bytes) over the
//                     device's memory rate, which is one thread's memcpy (read + write bytes)
//   pcie_pinned_bytes_per_s  the same memcpy, bytes copied (the backend's host copies)
//   cpu_adam_bytes_per_s_per_core  kernels/cpu/adamw.h adam_step on one thread, 28 bytes per
//                     parameter as the Plan counts them
//   kernel_launch_s   the interpreter's per-op clock reads (two steady_clock::now())
//   mpi_latency_s, mpi_busbw_bytes_per_s, mpi_allreduce_latency_s,
//   mpi_allreduce_busbw_bytes_per_s  all_reduce, all_gather and reduce_scatter over the group
//                     (exec/communicator.h) from 4 bytes to 4 MiB, least-squares fits of
//                     time = latency + bus bytes / bus bandwidth in relative error, all_reduce's
//                     apart; only with 2 or more ranks
// Every rank of the group runs every benchmark at the same time, as the ranks of a run share the
// machine; rank 0's figures are the result.
//
// The device: one core. Its fp32 peak is clock x (vector bits / 32) lanes x 4 FLOP per lane per
// cycle (two multiply and two add pipes: the build has no FMA), clock from /proc/cpuinfo, vector
// width from the build's instruction set (the Eigen kernels use the same).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/status.h"
#include "exec/communicator.h"
#include "models/ops.h"

namespace zs::calibrate {

struct Spread {
  double median = 0, min = 0, max = 0;
  int repeats = 0;
};

struct CpuMachine {
  std::string cpu_name;           // /proc/cpuinfo "model name"
  int logical_cpus = 0;           // std::thread::hardware_concurrency
  std::int64_t memory_bytes = 0;  // /proc/meminfo MemTotal
  double clock_hz = 0;            // /proc/cpuinfo "cpu MHz" of the first CPU
  int vector_bits = 0;            // 128 (SSE2), 256 (AVX), 512 (AVX-512), as built
  double fp32_peak_flops_per_s() const { return clock_hz * (vector_bits / 32.0) * 4.0; }
};

// What this machine reports, or kIoError naming /proc/cpuinfo or /proc/meminfo.
Result<CpuMachine> read_cpu_machine();

struct GemmPoint {
  double side = 0;
  double efficiency = 0;  // of the core's peak, median; clamped to [0.001, 1]
  Spread seconds;         // forward + backward
};

struct CollectivePoint {
  std::string kind;  // "all_reduce", "all_gather", "reduce_scatter"
  double bytes = 0;  // the Plan's bytes: the whole (gathered) buffer
  double bus_bytes = 0;
  Spread seconds;
};

struct CpuCalibration {
  CpuMachine machine;
  int ranks = 1;
  std::vector<GemmPoint> gemm;
  // Indexed by models::OpKind; seconds per unit forward and backward; `measured` false for
  // kinds the calibration models do not have (linear, flash attention).
  std::array<std::array<Spread, 2>, models::kOpKindCount> per_unit{};
  std::array<bool, models::kOpKindCount> measured{};
  // Attention: seconds per score visited, beside per_unit's seconds per FLOP (both fitted
  // together over the calibration models' head_dims, sim::CostProfile::cpu_attention_pair_s).
  std::array<Spread, 2> attention_pair_s{};
  Spread memcpy_bytes_per_s;  // bytes copied per second
  Spread cast_bytes_per_s;    // bytes read + written per second
  Spread adam_bytes_per_s;    // one thread
  double op_overhead_s = 0;
  std::vector<CollectivePoint> collectives;
  double mpi_latency_s = 0;  // all_gather and reduce_scatter
  double mpi_busbw_bytes_per_s = 0;
  double mpi_allreduce_latency_s = 0;
  double mpi_allreduce_busbw_bytes_per_s = 0;
  // The rounds: each one's speed relative to their median (the geometric mean over every
  // figure of the round's median over the rounds' median; above 1: slower), and the spread,
  // (slowest - fastest) / median.
  std::vector<double> round_speed;
  double spread = 0;
  double load_before = 0;  // /proc/loadavg's 1-minute load when calibration began
};

struct CalibrateOptions {
  int repeats = 5;
  int rounds = 12;
  // Called on rank 0 with one line per benchmark as it ends.
  std::function<void(const std::string&)> progress;
};

// Runs every benchmark; `comm` (null: one rank) is the group's. Every rank must call it.
Result<CpuCalibration> calibrate_cpu(const CalibrateOptions& options, exec::Communicator* comm);

// The cost profile `simulate --profile` reads: backend "cpu", the fields above, a "spread" object
// with each figure's median, min and max, and the stamp (machine, date, commit, command).
json::Json cpu_profile_json(const CpuCalibration& c, const std::string& date,
                            const std::string& commit, const std::string& command);

// A cluster file (configs/hardware/cluster.h) of this machine as `ranks` CPU devices of one
// core each on one node: every required field, from read_cpu_machine and the memcpy rate.
json::Json cpu_cluster_json(const CpuCalibration& c);

}  // namespace zs::calibrate
