// RankTensors: the data one rank's ZeRO collectives and CPU offload's copies move, where its
// backend keeps it. The plan interpreter (exec/plan_interpreter.h) decides what moves (which
// elements, in which dtype, scaled how); a RankTensors moves it: the CPU backend's in host
// memory (exec/host_rank_tensors.h), the CUDA backend's on the device, on the stream of the
// Plan op being issued (exec/cuda/cuda_rank_tensors.h).
//
// The tensors, all flat in ModelRunner order (num_params() elements):
// - the model's gradients (fp32) and working weights (the training dtype's values);
// - the reduced gradients (fp32): what this rank's gradient reductions delivered this step;
//   over one rank they are the model's gradients themselves;
// - the host's gradients (fp32): CPU offload's copy of this rank's gradient partition.
// A collective's buffer is raw `dtype` elements in the memory the backend's Communicator reads
// (exec/communicator.h): host memory for MPI, device memory for NCCL. Buffer positions follow a
// BufferMap (exec/collective_buffer.h); `op` is the Plan op the map belongs to, which a backend
// may use to keep the map where its kernels read it (the same op always passes the same map).
//
// Values are those of exec/collective_buffer.h's pack and unpack: a value put into a buffer is
// the fp32 element times `scale`, rounded to the dtype once; a value taken out is widened to
// fp32 and, when scale != 1, multiplied and rounded to the dtype again.
//
// Calls enqueue their work in issue order and need not wait for it, except read_scalar and
// working_weights, which return values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "exec/collective_buffer.h"
#include "exec/owned_runs.h"
#include "plan/plan.h"

namespace zs::exec {

class RankTensors {
 public:
  virtual ~RankTensors() = default;

  // The start of a step: the reduced gradients (over several ranks) and the host's gradients
  // are zero.
  virtual void begin_step() = 0;

  // A collective's buffer of at least `bytes`, contents undefined, valid until the next call.
  virtual std::byte* buffer(std::int64_t bytes) = 0;
  // Eight bytes for a scalar collective (a flag, a norm), apart from buffer(): write_scalar
  // puts `bytes` bytes of `value` there, read_scalar waits for what was enqueued on it and
  // copies them back. REQUIRES: 1 <= bytes <= 8.
  virtual std::byte* scalar() = 0;
  virtual void write_scalar(const void* value, std::int64_t bytes) = 0;
  virtual void read_scalar(void* value, std::int64_t bytes) = 0;

  // A gradient reduction's input: buffer positions [0, m.elems) from the model's gradients
  // times `scale` (zeros where no run lies), and the packed gradient elements become zero (as
  // DeepSpeed frees a reduced param.grad).
  virtual void take_grads(int op, const BufferMap& m, float scale, plan::Dtype dtype,
                          std::byte* buffer) = 0;
  // Its output: the runs' values at buffer positions [lo, hi), times `scale`, added into the
  // reduced gradients.
  virtual void add_reduced(int op, const BufferMap& m, const std::byte* buffer, float scale,
                           plan::Dtype dtype, std::int64_t lo, std::int64_t hi) = 0;
  // A parameter gather's input: buffer positions [lo, hi) (this rank's block) from the working
  // weights, zeros where no run lies.
  virtual void pack_weights(int op, const BufferMap& m, plan::Dtype dtype, std::int64_t lo,
                            std::int64_t hi, std::byte* buffer) = 0;
  // Its output: the runs' values at buffer positions [lo, hi) become the working weights
  // (rounded to the training dtype).
  virtual void place_weights(int op, const BufferMap& m, const std::byte* buffer, plan::Dtype dtype,
                             std::int64_t lo, std::int64_t hi) = 0;

  enum class GradSource { kReduced, kHost };
  // After the step's reductions: the model's gradients become `from`'s elements of this rank's
  // partition (`owned`), zero elsewhere. `from` kReduced needs several ranks.
  virtual void take_partition(GradSource from, std::span<const OwnedRun> owned) = 0;

  // CPU offload's gradient copy (Plan op `op`, always with the same runs): flat elements
  // [r.flat, r.flat + r.n) of each run are added from the reduced gradients into the host's
  // (host_to_device false) or back, and the source's elements become zero.
  virtual void move_grads(int op, std::span<const BufferRun> runs, bool host_to_device) = 0;

  // The working weights as fp32, after everything enqueued so far.
  virtual std::vector<float> working_weights() = 0;
};

// Whether `plan` moves gradients between device and host (CPU offload's CopyRole::kGradients),
// so that a RankTensors keeps host gradients.
bool moves_gradients(const plan::Plan& plan);

}  // namespace zs::exec
