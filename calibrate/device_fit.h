// Fitting the GPU cost model's rates to the ops an executor timed: the calibration half of
// `zerosim calibrate --backend cuda` that needs no GPU (calibrate/cuda_calibration.h runs the
// executor and hands its timelines here).
//
// The model is sim/cost_model.cc time_op's for fused kernels, written as a sum of terms, each a
// time at full rate multiplied by the inverse of one efficiency:
//   a GEMM (models::OpKind::kLinear)   FLOPs / peak, in the column of its size (the geometric
//                                       mean of m, n, k, gemm_side) binned to the nearest power
//                                       of two from 128 to 16384; a GEMM with a dimension that is
//                                       not a multiple of 16 bytes of its elements (cost_model's
//                                       alignment rule) goes to the unaligned column instead
//   attention (either kind)             FLOPs / peak
//   every other model op, a plan MemoryWork and the optimizer on the GPU
//                                       bytes / HBM bandwidth (the ops' fused hbm bytes)
//   a pinned host <-> GPU copy (CopyWork)  bytes / the preset's pcie_pinned_bytes_per_s
//   the optimizer on the host (offload)   bytes touched / (cores x the preset's
//                                       cpu_adam_bytes_per_s_per_core)
// peak is the cluster GPU's dense peak for the training precision (sim::peak_flops). A timed plan
// op is one row: the sum of its model ops' terms (a ComputeWork covers one to a few model ops)
// against its measured seconds. Collectives, pageable copies, host syncs and NVMe are not rows:
// they are not these rates. Nor is an op timed faster than its device terms at full rate
// (every efficiency 1): the executor did not do that work there (zerosim's CUDA backend folds
// the fp32 gradient cast and the parameter copy of stage 0 into the optimizer's kernel); such
// ops are listed apart.
//
// The fit: non-negative least squares in relative error (each row divided by its measured time),
// by cyclic coordinate descent on the normal equations (a handful of columns). An efficiency is
// the inverse of its column's coefficient, clamped to [0.001, 1]; a column no row uses, or whose
// coefficient comes out 0, is not measured (efficiency 0).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "configs/ds_config.h"
#include "configs/hardware/cluster.h"
#include "exec/exec_types.h"
#include "sim/simulate.h"

namespace zs::calibrate {

// One executor run to fit: its simulation (the Plan, the model graph, the cluster and precision)
// and the timeline of its last step (exec::ExecResult::timeline).
struct TimedRun {
  std::string model;  // for the residuals
  const sim::SimulationResult* sim = nullptr;
  const std::vector<exec::OpTiming>* timeline = nullptr;
  configs::GpuSpec gpu;  // the device the peaks come from
  configs::Precision precision = configs::Precision::kBf16;
  int cpu_cores = 1;  // the threads the executor's CPU Adam ran on (exec/cpu_adam.h)
};

struct FitRow {
  std::string model;
  int op = 0;
  std::string name;  // the plan op's name
  double measured_s = 0;
  double fitted_s = 0;
};

struct DeviceFit {
  // Aligned GEMMs: one point per size column that some row used, in increasing size: the
  // FLOP-weighted geometric mean side of its GEMMs, and the efficiency (0: not measured).
  std::vector<double> gemm_sides;
  std::vector<double> gemm_efficiency;
  // Of peak, not of the aligned rate (the profile's gemm_unaligned_efficiency is this over the
  // aligned curve at unaligned_side). 0: no unaligned GEMM.
  double unaligned_efficiency = 0;
  double unaligned_side = 0;
  double attention_efficiency = 0;
  double hbm_efficiency = 0;
  // Absolute host rates (0: no run timed them): one direction of a pinned copy, and the CPU
  // optimizer per core over `cpu_cores` cores.
  double pcie_pinned_bytes_per_s = 0;
  double cpu_adam_bytes_per_s_per_core = 0;
  int cpu_cores = 0;
  std::vector<FitRow> rows;
  std::vector<FitRow> excluded;  // fitted_s: the time at full rate, above the measured
  // |fitted - measured| / measured over the rows, and the same weighted by measured time.
  double median_abs_error = 0;
  double time_weighted_abs_error = 0;
};

// kInvalidArgument when no run has a timed row to fit (or a run lacks its simulation or
// timeline).
Result<DeviceFit> fit_device_rates(const std::vector<TimedRun>& runs);

// The GEMM column a size falls in (exposed for tests): the index of the nearest power of two
// from 128 (index 0) to 16384 (index 7), in log distance.
int gemm_size_column(double side);

}  // namespace zs::calibrate
