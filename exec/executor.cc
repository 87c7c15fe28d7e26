#include "exec/executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/process.h"
#include "common/units.h"
#include "exec/communicator.h"
#include "exec/cpu_adam.h"
#include "exec/cuda_library.h"
#include "exec/host_rank_tensors.h"
#include "exec/model_runner.h"
#include "exec/owned_runs.h"
#include "exec/plan_buffers.h"
#include "exec/plan_interpreter.h"
#include "exec/step_backend.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/grad_norm.h"

namespace zs::exec {
namespace {

using Clock = std::chrono::steady_clock;

// The CPU backend: a ModelRunner, and fp32 master weights and Adam states of this rank's
// partition (`owned`) in host memory; the Plan's device buffers accounted by a
// PlanBufferLedger as its ops are issued.
class CpuBackend final : public StepBackend {
 public:
  CpuBackend(ModelRunner runner, configs::Precision precision, const plan::Plan& plan,
             std::vector<OwnedRun> owned)
      : runner_(std::move(runner)),
        precision_(precision),
        ledger_(plan),
        store_(std::move(owned)),
        tensors_(runner_.flat_grads(), runner_.flat_params(), plan.world_size > 1,
                 moves_gradients(plan)) {
    master_.resize(static_cast<std::size_t>(store_.size()));
    for (const OwnedRun& r : store_.runs()) {
      std::copy_n(runner_.flat_params().begin() + r.flat, r.n, master_.begin() + r.first_elem);
    }
    exp_avg_.assign(master_.size(), 0.0f);
    exp_avg_sq_.assign(master_.size(), 0.0f);
    // Every rank starts from the same seeded weights; each rounds the whole model once.
    round_weights(runner_.flat_params());
  }

  int num_model_ops() const override { return runner_.num_ops(); }
  std::int64_t num_params() const override { return runner_.num_param_elements(); }

  void begin_step(double loss_scale, bool record) override {
    runner_.set_loss_scale(static_cast<float>(loss_scale));
    record_ = record;
    losses_.clear();
    timeline_.clear();
    t0_ = Clock::now();
  }
  void begin_op(int op, int /*repetition*/) override {
    ledger_.issue(op);
    if (record_) op_start_ns_ = ns_since_step();
  }
  void end_op(int op, int repetition) override {
    if (record_) timeline_.push_back(OpTiming{op, repetition, op_start_ns_, ns_since_step()});
    ledger_.finish(op);
  }

  // The Plan's device buffers' peaks so far.
  DeviceMemoryStats device_memory() const { return ledger_.stats(); }

  Status set_batch(std::span<const std::int32_t> tokens,
                   std::span<const std::int32_t> targets) override {
    return runner_.set_batch(tokens, targets);
  }
  Status compute(const plan::ComputeWork& c) override {
    switch (c.pass) {
      case plan::Pass::kForward:
        runner_.forward(c.first_model_op, c.last_model_op);
        if (c.last_model_op == runner_.num_ops() - 1) losses_.push_back(runner_.loss());
        break;
      case plan::Pass::kRecompute:
        runner_.recompute(c.first_model_op, c.last_model_op);
        break;
      case plan::Pass::kBackward:
        runner_.backward(c.first_model_op, c.last_model_op);
        break;
    }
    return Status::ok();
  }

  void drop_activations(int first, int last) override { runner_.drop_activations(first, last); }

  void inject_overflow() override {
    runner_.flat_grads()[0] = std::numeric_limits<float>::infinity();
  }
  bool grads_have_inf_or_nan() override {
    const std::span<const float> g = runner_.flat_grads();
    return kernels::cpu::has_inf_or_nan(g.data(), static_cast<std::int64_t>(g.size()));
  }
  double grads_sum_squares() override {
    const std::span<const float> g = runner_.flat_grads();
    return kernels::cpu::sum_squares(g.data(), static_cast<std::int64_t>(g.size()));
  }
  void scale_grads(double divisor) override {
    const std::span<float> g = runner_.flat_grads();
    kernels::cpu::scale_by_inverse(g.data(), static_cast<std::int64_t>(g.size()), divisor);
  }
  void adam(std::int64_t offset, std::int64_t n, const kernels::cpu::AdamConfig& config,
            std::int64_t step, bool on_cpu) override {
    const std::size_t at = master_index(offset, n);
    // DeepSpeed's CPU Adam runs on every core; the fused GPU Adam's stand-in here, on one.
    cpu_adam(master_.data() + at, runner_.flat_grads().data() + offset, exp_avg_.data() + at,
             exp_avg_sq_.data() + at, n, config, step, on_cpu ? 0 : 1);
  }

  void publish(std::int64_t offset, std::int64_t n) override {
    const std::size_t at = master_index(offset, n);
    const std::span<float> w = runner_.flat_params().subspan(static_cast<std::size_t>(offset),
                                                             static_cast<std::size_t>(n));
    std::copy_n(master_.begin() + static_cast<std::ptrdiff_t>(at), n, w.begin());
    round_weights(w);
  }

  StepEnd end_step() override {
    runner_.zero_grads();
    return StepEnd{std::move(losses_), std::move(timeline_)};
  }

  RankTensors& rank_tensors() override { return tensors_; }

 private:
  // Where flat elements [offset, offset + n) are in master_. REQUIRES: they lie in one run.
  std::size_t master_index(std::int64_t offset, std::int64_t n) const {
    return static_cast<std::size_t>(store_.index(offset, n));
  }

  std::int64_t ns_since_step() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
  }

  // `w` rounded to the 16-bit training dtype in place (nothing for fp32).
  void round_weights(std::span<float> w) const {
    const auto n = static_cast<std::int64_t>(w.size());
    if (precision_ == configs::Precision::kBf16) {
      std::vector<kernels::cpu::Bf16> half(w.size());
      kernels::cpu::float_to_bf16(w.data(), half.data(), n);
      kernels::cpu::bf16_to_float(half.data(), w.data(), n);
    } else if (precision_ == configs::Precision::kFp16) {
      std::vector<kernels::cpu::Fp16> half(w.size());
      kernels::cpu::float_to_fp16(w.data(), half.data(), n);
      kernels::cpu::fp16_to_float(half.data(), w.data(), n);
    }
  }

  ModelRunner runner_;
  configs::Precision precision_;
  PlanBufferLedger ledger_;
  PartitionStore store_;  // this rank's partition: where each element is in master_
  HostRankTensors tensors_;
  std::vector<float> master_, exp_avg_, exp_avg_sq_;  // (partition) fp32
  std::vector<double> losses_;
  std::vector<OpTiming> timeline_;
  bool record_ = false;
  Clock::time_point t0_;
  std::int64_t op_start_ns_ = 0;
};

// The CPU backend keeps everything in host memory: refuse before allocating what the machine
// does not have (it would thrash or be killed), naming what takes the memory.
Status check_host_memory(const models::ModelSpec& spec, const models::Workload& w,
                         std::int64_t partition_elems) {
  const std::optional<std::int64_t> available = available_memory_bytes();
  if (!available) return Status::ok();
  ZS_RETURN_IF_ERROR(check_runnable(spec, w));
  const std::int64_t params = models::parameter_count(spec);
  // The runner's buffers (weights and gradients, then activations), and fp32 master weights
  // and Adam's two moments of this rank's partition (CpuBackend).
  constexpr std::int64_t kFloat = sizeof(float);
  const std::int64_t runner = ModelRunner::host_bytes(spec, w);
  const std::int64_t weights = 2 * kFloat * params;
  const std::int64_t optimizer = 3 * kFloat * partition_elems;
  if (runner + optimizer <= *available) return Status::ok();
  return Status::invalid_argument(
      "the CPU backend needs about " + format_bytes(runner + optimizer) +
      " of host memory for model \"" + spec.name + "\" at micro-batch " +
      std::to_string(w.micro_batch) + " x seq_len " + std::to_string(w.seq_len) + " (" +
      format_bytes(weights) + " of fp32 weights and gradients, " + format_bytes(runner - weights) +
      " of activations, " + format_bytes(optimizer) + " of master weights and Adam states), and " +
      format_bytes(*available) +
      " is available (MemAvailable, or the cgroup's memory.max); use a smaller --micro-batch or "
      "--seq-len, or a smaller model");
}

Result<ExecResult> execute_cpu(const plan::BuiltPlan& built, const configs::DsConfig& config,
                               const ExecOptions& options) {
  const plan::Layout& l = built.layout;
  const int rank = options.communicator != nullptr ? options.communicator->rank() : 0;
  std::vector<OwnedRun> owned = owned_runs(l, rank);
  ZS_RETURN_IF_ERROR(check_host_memory(l.graph->spec, l.graph->workload, owned_elements(owned)));
  ZS_ASSIGN_OR_RETURN(ModelRunner runner,
                      ModelRunner::create(l.graph->spec, l.graph->workload, options.seed));
  CpuBackend backend(std::move(runner), l.precision, built.plan, std::move(owned));
  ZS_ASSIGN_OR_RETURN(ExecResult result, interpret_plan(built, config, options, backend));
  result.device_memory = backend.device_memory();
  return result;
}

}  // namespace

Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                           const ExecOptions& options) {
  const bool cuda = options.backend == Backend::kCuda;
  const int ranks = options.communicator != nullptr ? options.communicator->size() : 1;
  if (built.plan.world_size != ranks) {
    return Status::invalid_argument(
        "the plan is for " + std::to_string(built.plan.world_size) + " ranks and " +
        std::to_string(ranks) +
        (ranks == 1 ? " process runs it: start one process per rank (mpirun -np " +
                          std::to_string(built.plan.world_size) + " zerosim run ...)"
                    : " processes run it: the cluster's GPUs must equal the processes"));
  }
  if (!cuda) return execute_cpu(built, config, options);
  ZS_ASSIGN_OR_RETURN(const CudaLibrary* library, load_cuda_library());
  ZS_RETURN_IF_ERROR(library->device_status());
  return library->execute(built, config, options);
}

}  // namespace zs::exec
