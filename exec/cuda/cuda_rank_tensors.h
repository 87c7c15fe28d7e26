// The CUDA backend's RankTensors (exec/rank_tensors.h): the model's gradients (fp32) and
// working weights (the training dtype) are the CudaModelRunner's flat device arrays; the reduced
// gradients and the collectives' buffers are device arrays from the run's caching allocator;
// CPU offload's host gradients are pinned host memory, which move_grads' kernel reads and
// writes through its device mapping. The collectives' buffers are what the NCCL communicator
// (exec/cuda/nccl_communicator.h) reads.
//
// Streams: every call enqueues on the stream of the Plan op being issued (`*current`, which the
// backend sets at each begin_op), with kernels/cuda/pack.h for packing and unpacking and
// cudaMemcpyAsync for offload's copies; except take_grads, which packs on the compute stream
// (its comment says why). There is one collective buffer: a collective's packing waits for the
// one before it (DeepSpeed's overlap_comm alternates two buckets; this executor does not yet). The
// buffer and the scalar are shared by every op: when an op on another stream than the last one to
// use them asks for them, its stream first waits for every stream's last op
// (CudaSchedule::join_into). take_partition does the same, since it reads what every stream wrote.
// read_scalar and working_weights wait for their stream.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/status.h"
#include "exec/caching_allocator.h"
#include "exec/cuda/cuda_handles.h"
#include "exec/cuda/cuda_memory.h"
#include "exec/cuda/cuda_schedule.h"
#include "exec/rank_tensors.h"
#include "kernels/cuda/pack.h"

namespace zs::exec {

class CudaRankTensors final : public RankTensors {
 public:
  struct Tensors {
    float* grads = nullptr;   // (num_params) fp32, the runner's
    void* weights = nullptr;  // (num_params) of weights_type, the runner's
    kernels::cuda::ElemType weights_type = kernels::cuda::ElemType::kF32;
    std::int64_t num_params = 0;
  };
  // Allocates the reduced gradients (several_ranks), the largest collective buffer of `plan`
  // and the pinned host gradients (moves_gradients(plan)). "out of memory: ..." when the device
  // has no room. REQUIRES: the allocator, the schedule and `*current` outlive the object.
  static Result<std::unique_ptr<CudaRankTensors>> create(const plan::Plan& plan, Tensors t,
                                                         CachingAllocator& allocator,
                                                         CudaSchedule& schedule,
                                                         const cudaStream_t* current);

  void begin_step() override;
  std::byte* buffer(std::int64_t bytes) override;
  std::byte* scalar() override;
  void write_scalar(const void* value, std::int64_t bytes) override;
  void read_scalar(void* value, std::int64_t bytes) override;
  void take_grads(int op, const BufferMap& m, float scale, plan::Dtype dtype,
                  std::byte* buffer) override;
  void add_reduced(int op, const BufferMap& m, const std::byte* buffer, float scale,
                   plan::Dtype dtype, std::int64_t lo, std::int64_t hi) override;
  void pack_weights(int op, const BufferMap& m, plan::Dtype dtype, std::int64_t lo, std::int64_t hi,
                    std::byte* buffer) override;
  void place_weights(int op, const BufferMap& m, const std::byte* buffer, plan::Dtype dtype,
                     std::int64_t lo, std::int64_t hi) override;
  void take_partition(GradSource from, std::span<const OwnedRun> owned) override;
  void move_grads(int op, std::span<const BufferRun> runs, bool host_to_device) override;
  std::vector<float> working_weights() override;

  // Whether take_partition(kHost) ran this step: the step's gradients are then the host's
  // (host_grads(), this rank's partition; pinned memory written by move_grads' kernels on the
  // copy streams, final once every stream's work so far has run), as DeepSpeed's offloaded
  // optimizer keeps them on the host; the device's are zero.
  bool grads_on_host() const { return grads_on_host_; }
  float* host_grads() const { return host_.get(); }

  CudaRankTensors(const CudaRankTensors&) = delete;
  CudaRankTensors& operator=(const CudaRankTensors&) = delete;

 private:
  CudaRankTensors(Tensors t, CachingAllocator& allocator, CudaSchedule& schedule,
                  const cudaStream_t* current)
      : t_(t), allocator_(allocator), schedule_(schedule), current_(current) {}

  // The device copy of op `op`'s runs, uploaded on first use.
  const kernels::cuda::PackRun* runs_of(int op, std::span<const BufferRun> runs);
  // The current stream, after the last user of the shared buffer and scalar if it was another.
  cudaStream_t shared_stream();
  float* reduced() const { return reduced_.allocated() ? reduced_.get() : t_.grads; }

  Tensors t_;
  CachingAllocator& allocator_;
  CudaSchedule& schedule_;
  const cudaStream_t* current_;
  DeviceArray<float> reduced_;          // (num_params), several ranks only
  DeviceArray<std::byte> buffer_;       // the largest collective buffer of the Plan
  DeviceArray<std::byte> scalar_;       // (8)
  PinnedArray<std::byte> scalar_host_;  // (8)
  PinnedArray<float> host_;             // (num_params), offload only
  CudaEvent queued_, packed_;  // take_grads' hand-overs between the op's and compute stream
  cudaStream_t last_shared_ = nullptr;
  bool grads_on_host_ = false;
  std::vector<std::optional<DeviceArray<kernels::cuda::PackRun>>> runs_;  // per op
};

}  // namespace zs::exec
