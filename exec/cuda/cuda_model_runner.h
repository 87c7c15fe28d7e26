// CudaModelRunner<T>: one model's training compute on a CUDA device, op by op, as the executor
// drives it: the device twin of ModelRunner (exec/model_runner.h), with the same op list, the
// same ranges, the same dataflow (Op::inputs), the same forward / recompute / drop /
// backward contract and the same numerics up to the storage type T and kernels/cuda's
// reduction orders. Its kernels are kernels/cuda's; every byte of device memory comes from the
// CachingAllocator it is given.
//
// Storage (T is float, __nv_bfloat16 or __half: the training dtype, fp32 / bf16 / fp16):
//   parameters   T, one flat buffer of num_param_elements(), laid out as ModelRunner's (each
//                non-tied tensor at param_offset(id), registration order; a tied alias shares
//                its target's storage): the working weights the kernels read. The fp32 master
//                weights they are rounded from belong to the optimizer (exec/cuda/cuda_executor.h).
//   gradients    fp32, the same layout. Weight gradients ACCUMULATE over backward passes until
//                zero_grads() (kernels/cuda write fp32 weight gradients with beta = 1, as
//                DeepSpeed's ZeRO accumulates into fp32 partitions).
//   activations  per op: its output and the gradient of its output, T; what its kernel keeps
//                beyond its inputs: norm row statistics and the attention log-sum-exp (fp32),
//                GPT-2's q/k/v copied out of the fused qkv output (T). Layouts as ModelRunner's.
// Unlike ModelRunner, activations are allocated when they are made and freed when no longer
// needed, as PyTorch's autograd frees them, so the allocator's peak is a real training peak:
// an op's output, saved tensors and output gradient are allocated by its forward (the gradient
// by the first of its readers' backward) and freed after its own backward; drop_activations
// frees what it drops. Temporaries (backward scratch, the embedding's sort workspace, the
// per-token losses) live for one op.
//
// Streams: all work is enqueued on the one stream given to create() and every method returns
// without waiting for it, except where a method says it synchronizes. Work on that stream is
// FIFO, so a freed block that the allocator hands out again is only touched after the kernels
// that used it (exec/cuda/cuda_memory.h).
//
// Numerics: kernels/cuda compute in fp32 and round each T output once; activation gradients
// are T (in bf16/fp16 they are rounded where ModelRunner keeps fp32), weight gradients fp32.
// With T = float the results match ModelRunner's to fp32 rounding (the kernels' sums run in
// other orders and cuBLASLt's products are fp32 without TF32). Deterministic on one device.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "common/status.h"
#include "exec/activation_ledger.h"
#include "exec/caching_allocator.h"
#include "exec/cuda/cuda_handles.h"
#include "exec/cuda/cuda_memory.h"
#include "kernels/cuda/linear.h"
#include "kernels/cuda/types.h"
#include "models/model_spec.h"
#include "models/ops.h"
#include "models/parameters.h"

namespace zs::exec {

// OK when kernels/cuda can train `spec` on `w`: check_runnable (exec/model_runner.h), and the
// CUDA kernels' limits: head_dim <= 128 (attention tiles), micro_batch and heads <= 65535
// (grid dimensions), t = micro_batch·seq_len < 2^31. Else kInvalidArgument naming the model,
// the field, its value and what is allowed.
Status check_cuda_runnable(const models::ModelSpec& spec, const models::Workload& w);

template <class T>
class CudaModelRunner {
 public:
  // Returns a runner whose working weights are GPT-2's initialisation drawn from `seed`
  // (exec/weight_init.h) rounded to T, gradients zero, no batch set and loss scale 1; or
  // check_cuda_runnable's error, or "out of memory: ..." from the allocator.
  // REQUIRES: a current CUDA device; `allocator` (over device memory) and `stream` outlive the
  // runner.
  static Result<std::unique_ptr<CudaModelRunner>> create(const models::ModelSpec& spec,
                                                         const models::Workload& w,
                                                         std::uint64_t seed,
                                                         CachingAllocator& allocator,
                                                         cudaStream_t stream);
  // Private: create() makes runners (Key is its passkey for std::make_unique).
  class Key {
    explicit Key() = default;
    friend class CudaModelRunner;
  };
  CudaModelRunner(Key, CachingAllocator& allocator, cudaStream_t stream);
  // Waits for the stream, then returns every array to the allocator.
  ~CudaModelRunner();
  CudaModelRunner(const CudaModelRunner&) = delete;
  CudaModelRunner& operator=(const CudaModelRunner&) = delete;

  const models::ModelSpec& spec() const { return spec_; }
  const models::Workload& workload() const { return workload_; }
  const std::vector<models::Op>& ops() const { return ops_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const std::vector<models::ParamTensor>& params() const { return tensors_; }
  cudaStream_t stream() const { return stream_; }

  // ModelRunner::set_batch: checks every id on the host (the same message), then copies the
  // batch to the device through pinned staging. Waits only for the previous batch's copy.
  Status set_batch(std::span<const std::int32_t> tokens, std::span<const std::int32_t> targets);

  // ModelRunner::set_loss_scale.
  void set_loss_scale(float dloss);

  // ModelRunner::forward / recompute / drop_activations / backward: the same REQUIRES and
  // effects, with the memory lifetimes of the header comment. After an op's backward its
  // activations are gone: the next forward makes them again (ModelRunner keeps them, but no
  // contract use reads them). The Status is the allocator's "out of memory: ..."; the runner is
  // then in an unspecified state (start again from forward(0, ...) after freeing memory).
  Status forward(int first, int last);
  Status recompute(int first, int last);
  void drop_activations(int first, int last);
  Status backward(int first, int last);

  // The mean cross-entropy of the last forward (or recompute) of the loss op; NaN before the
  // first. Synchronizes the stream.
  double loss();
  // The mean loss of every forward (not recompute) of the loss op since the last call, in
  // order, and forgets them: the executor reads a step's losses with one synchronization.
  // Synchronizes the stream.
  std::vector<double> take_losses();

  // Element offset of parameter `id` in the flat buffers (a tied alias: its target's).
  // REQUIRES: 0 <= id < params().size().
  std::int64_t param_offset(int id) const;
  // Every non-tied parameter (gradient), back to back in registration order, on the device.
  std::int64_t num_param_elements() const { return weights_.size(); }
  T* flat_params() { return weights_.get(); }
  const T* flat_params() const { return weights_.get(); }
  float* flat_grads() { return grads_.get(); }
  const float* flat_grads() const { return grads_.get(); }

  // The fp32 weights create() rounded to T: GPT-2's initialisation from the runner's seed,
  // computed on the host again (the master weights' starting values).
  std::vector<float> initial_params() const;
  // Sets the working weights to `weights` (num_param_elements() fp32 values, ModelRunner's
  // flat layout) rounded to T (kernels/cuda/dtype.h). Synchronizes the stream.
  // "out of memory: ..." when the fp32 staging array does not fit.
  Status load_params(std::span<const float> weights);
  // The working weights widened to fp32 (exactly), and the fp32 gradients, copied to the host.
  // Synchronize the stream.
  std::vector<float> params_to_host() const;
  std::vector<float> grads_to_host() const;

  // Sets every weight gradient to 0 (the optimizer step's zero_grad), on the stream.
  void zero_grads();

 private:
  // One op's activations (OpState in ModelRunner), each allocated while live.
  struct OpState {
    DeviceArray<T> out;        // the op's output (models/op_graph.h, "Dataflow")
    DeviceArray<T> dout;       // d(objective)/d(out)
    DeviceArray<float> stats;  // norm mean/rstd, or the attention lse (fp32)
    DeviceArray<T> qkv;        // GPT-2 attention: q, k, v split out of the fused projection
  };
  // Where an op's backward writes the gradient of one input: the input's own gradient array
  // when this op is the first of its readers to run backward, else `scratch`, added in after.
  struct InputGrad {
    T* data = nullptr;    // what the kernel writes (overwrites)
    T* target = nullptr;  // the input's dout
    std::int64_t numel = 0;
    DeviceArray<T> scratch;
  };

  // Offsets, readers and the arrays every step uses.
  Status allocate();
  // Appends last_loss_ to losses_, growing it on the stream.
  Status record_forward_loss();
  Status run_forward(int first, int last, bool recompute);
  Status forward_op(int i, bool recompute);
  Status forward_attention(int i);
  Status backward_op(int i);
  Status backward_attention(int i);
  Status backward_rotary(int i);
  // Frees op i's activations after its backward.
  void release(int i);
  Result<InputGrad> input_grad(int input);
  // Adds g's scratch into its target when the kernel did not write the target itself.
  void finish(const InputGrad& g);
  template <class U>
  Result<DeviceArray<U>> alloc(std::int64_t n) {
    return DeviceArray<U>::allocate(*allocator_, n);
  }
  models::AttentionShape attention_shape() const;  // ModelRunner::attention_shape
  const T* out(int i) const { return state_[static_cast<std::size_t>(i)].out.get(); }
  const T* weight(const models::Op& op, std::size_t k) const;
  float* weight_grad(const models::Op& op, std::size_t k);
  // Copies n elements of T on the stream.
  void copy(T* dst, const T* src, std::int64_t n);

  CachingAllocator* allocator_;
  cudaStream_t stream_;
  models::ModelSpec spec_;
  models::Workload workload_;
  std::uint64_t seed_ = 0;
  std::vector<models::Op> ops_;
  std::vector<models::ParamTensor> tensors_;
  std::vector<std::int64_t> offsets_;    // per parameter id, into weights_ / grads_
  DeviceArray<T> weights_;               // (num_param_elements) working weights
  DeviceArray<float> grads_;             // (num_param_elements) fp32, accumulated
  std::vector<OpState> state_;           // per op
  ActivationLedger ledger_;              // which of state_ is live (exec/activation_ledger.h)
  DeviceArray<std::int32_t> tokens_;     // (t)
  DeviceArray<std::int32_t> targets_;    // (t)
  PinnedArray<std::int32_t> staging_;    // (2t): tokens then targets, on their way to the device
  CudaEvent staged_;                     // recorded after the last batch copy left staging_
  DeviceArray<std::byte> lt_workspace_;  // cuBLASLt's (LtContext::kDefaultWorkspaceBytes)
  std::unique_ptr<kernels::cuda::LtContext> lt_;
  DeviceArray<float> last_loss_;  // (1) the last loss forward or recompute wrote
  DeviceArray<float> losses_;     // (capacity) forward losses not yet taken
  std::int64_t num_losses_ = 0;
  PinnedArray<float> loss_host_;  // (1)
  float loss_scale_ = 1.0f;
  bool has_loss_ = false;
};

extern template class CudaModelRunner<float>;
extern template class CudaModelRunner<__nv_bfloat16>;
extern template class CudaModelRunner<__half>;

}  // namespace zs::exec
