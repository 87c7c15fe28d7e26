#include "exec/cuda/cuda_executor.h"

#include <cuda_runtime.h>

#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "exec/caching_allocator.h"
#include "exec/cuda/cuda_memory.h"
#include "exec/cuda/cuda_model_runner.h"
#include "exec/cuda/cuda_schedule.h"
#include "exec/plan_interpreter.h"
#include "exec/step_backend.h"
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
  Status init(const plan::BuiltPlan& built, std::uint64_t seed) {
    ZS_ASSIGN_OR_RETURN(schedule_, CudaSchedule::create(built.plan));
    const plan::Layout& l = built.layout;
    ZS_ASSIGN_OR_RETURN(runner_, CudaModelRunner<T>::create(l.graph->spec, l.graph->workload, seed,
                                                            allocator_, schedule_->compute()));
    const std::int64_t n = runner_->num_param_elements();
    ZS_ASSIGN_OR_RETURN(master_, DeviceArray<float>::allocate(allocator_, n));
    ZS_ASSIGN_OR_RETURN(exp_avg_, DeviceArray<float>::allocate(allocator_, n));
    ZS_ASSIGN_OR_RETURN(exp_avg_sq_, DeviceArray<float>::allocate(allocator_, n));
    ZS_ASSIGN_OR_RETURN(partials_,
                        DeviceArray<double>::allocate(allocator_, cuda::kSumSquaresPartials));
    ZS_ASSIGN_OR_RETURN(sum_squares_, DeviceArray<double>::allocate(allocator_, 1));
    ZS_ASSIGN_OR_RETURN(overflow_, DeviceArray<std::int32_t>::allocate(allocator_, 1));
    sum_squares_host_ = PinnedArray<double>(1);
    overflow_host_ = PinnedArray<std::int32_t>(1);
    inf_host_ = PinnedArray<float>(1);
    *inf_host_.get() = std::numeric_limits<float>::infinity();

    cudaStream_t s = schedule_->compute();
    const std::vector<float> initial = runner_->initial_params();
    if (n > 0) {
      const auto bytes = static_cast<std::size_t>(master_.bytes());
      ZS_CUDA_CHECK(
          cudaMemcpyAsync(master_.get(), initial.data(), bytes, cudaMemcpyHostToDevice, s));
      ZS_CUDA_CHECK(cudaMemsetAsync(exp_avg_.get(), 0, bytes, s));
      ZS_CUDA_CHECK(cudaMemsetAsync(exp_avg_sq_.get(), 0, bytes, s));
    }
    ZS_CUDA_CHECK(cudaStreamSynchronize(s));  // `initial` goes out of scope
    return Status::ok();
  }

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
    schedule_->join_into(stream_);
    cuda::has_inf_or_nan<float>(runner_->flat_grads(), num_params(), overflow_.get(), stream_);
    ZS_CUDA_CHECK(cudaMemcpyAsync(overflow_host_.get(), overflow_.get(), sizeof(std::int32_t),
                                  cudaMemcpyDeviceToHost, stream_));
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the loss scaler decides on the host
    return *overflow_host_.get() != 0;
  }
  double grads_sum_squares() override {
    schedule_->join_into(stream_);
    cuda::sum_squares<float>(runner_->flat_grads(), num_params(), partials_.get(),
                             sum_squares_.get(), stream_);
    ZS_CUDA_CHECK(cudaMemcpyAsync(sum_squares_host_.get(), sum_squares_.get(), sizeof(double),
                                  cudaMemcpyDeviceToHost, stream_));
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the clip divisor is computed on the host
    return *sum_squares_host_.get();
  }
  void scale_grads(double divisor) override {
    schedule_->join_into(stream_);
    cuda::scale_by_inverse<float>(runner_->flat_grads(), num_params(), divisor, stream_);
  }
  // On the device whatever the Plan says (CPU offload is not built on this backend).
  void adam(std::int64_t offset, std::int64_t n, const kernels::cpu::AdamConfig& config,
            std::int64_t step, bool /*on_cpu*/) override {
    ZS_CHECK(offset >= 0 && n >= 1 && offset + n <= num_params());
    schedule_->join_into(stream_);  // after the unscale-and-clip, wherever it ran
    // The updated weights also go, rounded to T, to the runner's working weights (the copy
    // into the 16-bit params of stage_1_and_2.py step()), in the same pass.
    cuda::adam_step<T>(master_.get() + offset, runner_->flat_grads() + offset,
                       exp_avg_.get() + offset, exp_avg_sq_.get() + offset, n, config, step,
                       runner_->flat_params() + offset, stream_);
  }

  // adam() writes the working weights itself (one rank: the partition is the model).
  void publish(std::int64_t /*offset*/, std::int64_t /*n*/) override {}

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
  DeviceArray<float> master_, exp_avg_, exp_avg_sq_;  // (P) fp32
  DeviceArray<double> partials_;                      // (kSumSquaresPartials)
  DeviceArray<double> sum_squares_;                   // (1)
  DeviceArray<std::int32_t> overflow_;                // (1)
  PinnedArray<double> sum_squares_host_;              // (1)
  PinnedArray<std::int32_t> overflow_host_;           // (1)
  PinnedArray<float> inf_host_;                       // (1) +inf, for inject_overflow
  cudaStream_t stream_ = nullptr;                     // where the current op's device work goes
};

template <class T>
Result<ExecResult> train(const plan::BuiltPlan& built, const configs::DsConfig& config,
                         const ExecOptions& options) {
  CudaBackend<T> backend;
  ZS_RETURN_IF_ERROR(backend.init(built, options.seed));
  ZS_ASSIGN_OR_RETURN(ExecResult result, interpret_plan(built, config, options, backend));
  result.device_memory = backend.memory_stats();
  return result;
}

}  // namespace

Result<ExecResult> execute_cuda(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                const ExecOptions& options) {
  ZS_CHECK(built.plan.world_size == 1);
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
