#include "exec/cuda/cuda_executor.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "exec/caching_allocator.h"
#include "exec/cpu_adam.h"
#include "exec/cuda/cuda_memory.h"
#include "exec/cuda/cuda_model_runner.h"
#include "exec/cuda/cuda_rank_tensors.h"
#include "exec/cuda/cuda_schedule.h"
#include "exec/cuda/nccl_communicator.h"
#include "exec/launch.h"
#include "exec/owned_runs.h"
#include "exec/plan_interpreter.h"
#include "exec/step_backend.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/grad_norm.h"
#include "kernels/cuda/adamw.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/grad_norm.h"

namespace zs::exec {
namespace {

namespace cuda = kernels::cuda;

// The CUDA backend for one training dtype T: a CudaModelRunner<T>, fp32 master weights and Adam
// states on the device, and the Plan's streams and events (CudaSchedule).
template <class T>
class CudaBackend final : public StepBackend {
 public:
  CudaBackend() : allocator_(raw_) {}
  ~CudaBackend() override {
    // Work queued on any stream may still use memory about to return to the allocator.
    ZS_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  // The streams, the runner, and the optimizer's arrays: master weights from the runner's
  // initial fp32 weights (which it rounded to T), Adam states zero. Errors: CudaSchedule's and
  // CudaModelRunner's, or the allocator's "out of memory".
  Status init(const plan::BuiltPlan& built, std::uint64_t seed, int rank) {
    ZS_ASSIGN_OR_RETURN(schedule_, CudaSchedule::create(built.plan));
    const plan::Layout& l = built.layout;
    ZS_ASSIGN_OR_RETURN(runner_, CudaModelRunner<T>::create(l.graph->spec, l.graph->workload, seed,
                                                            allocator_, schedule_->compute()));
    stream_ = schedule_->compute();
    store_ = PartitionStore(owned_runs(l, rank));
    const std::int64_t n = store_.size();
    ZS_ASSIGN_OR_RETURN(offload_, optimizer_on_cpu(built.plan));
    if (offload_) {
      // DeepSpeed's offloaded optimizer: the fp32 partition and Adam states in host memory
      // (pinned: the 16-bit copy up is asynchronous), CPU Adam over them.
      host_master_ = PinnedArray<float>(n);
      host_exp_avg_ = PinnedArray<float>(n);
      host_exp_avg_sq_ = PinnedArray<float>(n);
      host_weights_ = PinnedArray<T>(n);
    } else {
      ZS_ASSIGN_OR_RETURN(master_, DeviceArray<float>::allocate(allocator_, n));
      ZS_ASSIGN_OR_RETURN(exp_avg_, DeviceArray<float>::allocate(allocator_, n));
      ZS_ASSIGN_OR_RETURN(exp_avg_sq_, DeviceArray<float>::allocate(allocator_, n));
    }
    ZS_ASSIGN_OR_RETURN(tensors_,
                        CudaRankTensors::create(built.plan,
                                                {.grads = runner_->flat_grads(),
                                                 .weights = runner_->flat_params(),
                                                 .weights_type = weights_type(),
                                                 .num_params = runner_->num_param_elements()},
                                                allocator_, *schedule_, &stream_));
    ZS_ASSIGN_OR_RETURN(partials_,
                        DeviceArray<double>::allocate(allocator_, cuda::kSumSquaresPartials));
    ZS_ASSIGN_OR_RETURN(sum_squares_, DeviceArray<double>::allocate(allocator_, 1));
    ZS_ASSIGN_OR_RETURN(overflow_, DeviceArray<std::int32_t>::allocate(allocator_, 1));
    sum_squares_host_ = PinnedArray<double>(1);
    overflow_host_ = PinnedArray<std::int32_t>(1);
    inf_host_ = PinnedArray<float>(1);
    *inf_host_.get() = std::numeric_limits<float>::infinity();

    cudaStream_t s = schedule_->compute();
    // The master weights of this rank's partition, from the runner's initial fp32 weights.
    const std::vector<float> all = runner_->initial_params();
    std::vector<float> initial(static_cast<std::size_t>(n));
    for (const OwnedRun& r : store_.runs()) {
      std::copy_n(all.begin() + r.flat, r.n, initial.begin() + r.first_elem);
    }
    if (offload_ && n > 0) {
      std::copy(initial.begin(), initial.end(), host_master_.get());
      std::fill_n(host_exp_avg_.get(), n, 0.0f);
      std::fill_n(host_exp_avg_sq_.get(), n, 0.0f);
    } else if (n > 0) {
      const auto bytes = static_cast<std::size_t>(master_.bytes());
      ZS_CUDA_CHECK(
          cudaMemcpyAsync(master_.get(), initial.data(), bytes, cudaMemcpyHostToDevice, s));
      ZS_CUDA_CHECK(cudaMemsetAsync(exp_avg_.get(), 0, bytes, s));
      ZS_CUDA_CHECK(cudaMemsetAsync(exp_avg_sq_.get(), 0, bytes, s));
    }
    ZS_CUDA_CHECK(cudaStreamSynchronize(s));  // `initial` goes out of scope
    return Status::ok();
  }

  // The stream of the op being issued, for the NCCL communicator.
  const cudaStream_t* current_stream() const { return &stream_; }

  DeviceMemoryStats memory_stats() const {
    const Stats s = allocator_.stats();
    return {.peak_allocated_bytes = s.peak_allocated_bytes,
            .peak_reserved_bytes = s.peak_reserved_bytes,
            .num_raw_allocs = s.num_raw_allocs};
  }

  int num_model_ops() const override { return runner_->num_ops(); }
  std::int64_t num_params() const override { return runner_->num_param_elements(); }

  void begin_step(double loss_scale, bool record) override {
    runner_->set_loss_scale(static_cast<float>(loss_scale));
    schedule_->begin_step(record);
    stream_ = schedule_->compute();
  }
  void begin_op(int op, int repetition) override { stream_ = schedule_->begin_op(op, repetition); }
  void end_op(int op, int /*repetition*/) override { schedule_->end_op(op); }

  Status set_batch(std::span<const std::int32_t> tokens,
                   std::span<const std::int32_t> targets) override {
    return runner_->set_batch(tokens, targets);
  }
  Status compute(const plan::ComputeWork& c) override {
    // CudaSchedule::create checked that every ComputeWork is on the runner's stream.
    ZS_CHECK(stream_ == runner_->stream());
    switch (c.pass) {
      case plan::Pass::kForward:
        return runner_->forward(c.first_model_op, c.last_model_op);
      case plan::Pass::kRecompute:
        return runner_->recompute(c.first_model_op, c.last_model_op);
      case plan::Pass::kBackward:
        return runner_->backward(c.first_model_op, c.last_model_op);
    }
    ZS_UNREACHABLE();
  }

  void drop_activations(int first, int last) override { runner_->drop_activations(first, last); }

  void inject_overflow() override {
    schedule_->join_into(stream_);
    ZS_CUDA_CHECK(cudaMemcpyAsync(runner_->flat_grads(), inf_host_.get(), sizeof(float),
                                  cudaMemcpyHostToDevice, stream_));
  }
  bool grads_have_inf_or_nan() override {
    if (tensors_->grads_on_host()) {
      wait_host_grads();
      bool bad = false;
      for (const OwnedRun& r : store_.runs()) {
        bad = bad || kernels::cpu::has_inf_or_nan(tensors_->host_grads() + r.flat, r.n);
      }
      return bad;
    }
    schedule_->join_into(stream_);
    cuda::has_inf_or_nan<float>(runner_->flat_grads(), num_params(), overflow_.get(), stream_);
    ZS_CUDA_CHECK(cudaMemcpyAsync(overflow_host_.get(), overflow_.get(), sizeof(std::int32_t),
                                  cudaMemcpyDeviceToHost, stream_));
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the loss scaler decides on the host
    return *overflow_host_.get() != 0;
  }
  double grads_sum_squares() override {
    if (tensors_->grads_on_host()) {
      wait_host_grads();
      double sum = 0;
      for (const OwnedRun& r : store_.runs()) {
        sum += kernels::cpu::sum_squares(tensors_->host_grads() + r.flat, r.n);
      }
      return sum;
    }
    schedule_->join_into(stream_);
    cuda::sum_squares<float>(runner_->flat_grads(), num_params(), partials_.get(),
                             sum_squares_.get(), stream_);
    ZS_CUDA_CHECK(cudaMemcpyAsync(sum_squares_host_.get(), sum_squares_.get(), sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_));
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the clip divisor is computed on the host
    return *sum_squares_host_.get();
  }
  void scale_grads(double divisor) override {
    if (tensors_->grads_on_host()) {
      wait_host_grads();
      for (const OwnedRun& r : store_.runs()) {
        kernels::cpu::scale_by_inverse(tensors_->host_grads() + r.flat, r.n, divisor);
      }
      return;
    }
    schedule_->join_into(stream_);
    cuda::scale_by_inverse<float>(runner_->flat_grads(), num_params(), divisor, stream_);
  }
  // Where the Plan says: on the device (fused Adam), or DeepSpeed's CPU Adam on every core over
  // the host's partition and gradients (offload).
  void adam(std::int64_t offset, std::int64_t n, const kernels::cpu::AdamConfig& config,
            std::int64_t step, bool on_cpu) override {
    ZS_CHECK(offset >= 0 && n >= 1 && offset + n <= num_params());
    ZS_CHECK(on_cpu == offload_);
    const std::int64_t at = store_.index(offset, n);
    if (on_cpu) {
      ZS_CHECK(tensors_->grads_on_host());
      wait_host_grads();
      cpu_adam(host_master_.get() + at, tensors_->host_grads() + offset, host_exp_avg_.get() + at,
               host_exp_avg_sq_.get() + at, n, config, step);
      return;
    }
    schedule_->join_into(stream_);  // after the unscale-and-clip, wherever it ran
    // The updated weights also go, rounded to T, to the runner's working weights (the copy
    // into the 16-bit params of stage_1_and_2.py step()), in the same pass.
    cuda::adam_step<T>(master_.get() + at, runner_->flat_grads() + offset, exp_avg_.get() + at,
                       exp_avg_sq_.get() + at, n, config, step, runner_->flat_params() + offset,
                       stream_);
  }

  // On the device adam() writes the working weights of its partition itself, before any
  // gather reads them. With offload: the updated fp32 partition rounded to T on the host, then
  // copied up on the op's stream (stage_1_and_2.py step's cpu_offload branch;
  // stage3.py _reassign_or_swap_out_partitioned_parameters).
  void publish(std::int64_t offset, std::int64_t n) override {
    if (!offload_) return;
    const std::int64_t at = store_.index(offset, n);
    T* staged = host_weights_.get() + at;
    const float* master = host_master_.get() + at;
    if constexpr (std::is_same_v<T, float>) {
      std::copy_n(master, n, staged);
    } else {
      std::vector<std::uint16_t> bits(static_cast<std::size_t>(n));
      if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        kernels::cpu::float_to_bf16(master, reinterpret_cast<kernels::cpu::Bf16*>(bits.data()), n);
      } else {
        kernels::cpu::float_to_fp16(master, reinterpret_cast<kernels::cpu::Fp16*>(bits.data()), n);
      }
      std::memcpy(static_cast<void*>(staged), bits.data(), bits.size() * sizeof(std::uint16_t));
    }
    // The staged range is written again only next step, after the step's device sync.
    ZS_CUDA_CHECK(cudaMemcpyAsync(runner_->flat_params() + offset, staged,
                                  static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyHostToDevice,
                                  stream_));
  }

  RankTensors& rank_tensors() override { return *tensors_; }

  StepEnd end_step() override {
    // The working weights already follow the master weights: adam() wrote them.
    cudaStream_t compute = schedule_->compute();
    schedule_->join_into(compute);
    runner_->zero_grads();
    StepEnd end;
    end.timeline = schedule_->end_step();  // synchronizes the device
    end.losses = runner_->take_losses();
    return end;
  }

 private:
  // Declared in the order they must be made; destroyed in reverse (memory last).
  CudaRawMemory raw_;
  CachingAllocator allocator_;
  std::unique_ptr<CudaSchedule> schedule_;
  std::unique_ptr<CudaModelRunner<T>> runner_;
  PartitionStore store_{{}};  // this rank's partition
  std::unique_ptr<CudaRankTensors> tensors_;
  DeviceArray<float> master_, exp_avg_, exp_avg_sq_;  // (partition) fp32, without offload
  bool offload_ = false;                              // every OptimizerWork on the CPU
  PinnedArray<float> host_master_, host_exp_avg_, host_exp_avg_sq_;  // (partition), offload
  PinnedArray<T> host_weights_;   // (partition) offload: the update rounded to T, for the copy up
  DeviceArray<double> partials_;  // (kSumSquaresPartials)
  DeviceArray<double> sum_squares_;          // (1)
  DeviceArray<std::int32_t> overflow_;       // (1)
  PinnedArray<double> sum_squares_host_;     // (1)
  PinnedArray<std::int32_t> overflow_host_;  // (1)
  PinnedArray<float> inf_host_;              // (1) +inf, for inject_overflow
  cudaStream_t stream_ = nullptr;            // where the current op's device work goes

  // The host waits for every stream's work so far: offload's copy kernels have written the
  // host's gradients.
  void wait_host_grads() {
    schedule_->join_into(stream_);
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Whether the Plan's optimizer runs on the CPU: all of it or none (a partial offload ratio
  // is refused).
  static Result<bool> optimizer_on_cpu(const plan::Plan& plan) {
    bool cpu = false, gpu = false;
    for (const plan::Op& op : plan.ops) {
      if (const auto* o = std::get_if<plan::OptimizerWork>(&op.work)) {
        (o->on_cpu ? cpu : gpu) = true;
      }
    }
    if (cpu && gpu) {
      return Status::invalid_argument(
          "the plan runs part of the optimizer on the GPU and part on the CPU "
          "(offload_optimizer.ratio below 1); the CUDA backend runs it all in one place");
    }
    return cpu;
  }

  static kernels::cuda::ElemType weights_type() {
    if constexpr (std::is_same_v<T, float>) {
      return kernels::cuda::ElemType::kF32;
    } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      return kernels::cuda::ElemType::kBf16;
    } else {
      return kernels::cuda::ElemType::kF16;
    }
  }
};

template <class T>
Result<ExecResult> train(const plan::BuiltPlan& built, const configs::DsConfig& config,
                         const ExecOptions& options) {
  Communicator* group = options.communicator;
  const int rank = group != nullptr ? group->rank() : 0;
  CudaBackend<T> backend;
  ZS_RETURN_IF_ERROR(backend.init(built, options.seed, rank));
  // Over several ranks the Plan's collectives are NCCL's, bootstrapped over the launcher's
  // communicator, on the stream of the op being issued.
  std::unique_ptr<Communicator> nccl;
  ExecOptions o = options;
  if (group != nullptr && group->size() > 1) {
    ZS_ASSIGN_OR_RETURN(nccl, make_nccl_communicator(*group, backend.current_stream(),
                                                     options.collective_timeout_s));
    o.communicator = nccl.get();
  }
  ZS_ASSIGN_OR_RETURN(ExecResult result, interpret_plan(built, config, o, backend));
  result.device_memory = backend.memory_stats();
  return result;
}

}  // namespace

Result<ExecResult> execute_cuda(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                const ExecOptions& options) {
  // One GPU per rank of a node: the launcher's local rank picks it (mpirun's
  // OMPI_COMM_WORLD_LOCAL_RANK, srun's SLURM_LOCALID), as DeepSpeed's launcher sets LOCAL_RANK.
  int devices = 0;
  ZS_CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int local = launched_local_rank();
  if (local >= devices) {
    return Status::invalid_argument(
        "rank " + std::to_string(local) + " of this node has no GPU of its own: the node has " +
        std::to_string(devices) + "; start at most that many ranks per node");
  }
  ZS_CUDA_CHECK(cudaSetDevice(local));
  switch (built.layout.precision) {
    case configs::Precision::kFp32:
      return train<float>(built, config, options);
    case configs::Precision::kBf16:
      return train<__nv_bfloat16>(built, config, options);
    case configs::Precision::kFp16:
      return train<__half>(built, config, options);
  }
  ZS_UNREACHABLE();
}

}  // namespace zs::exec
