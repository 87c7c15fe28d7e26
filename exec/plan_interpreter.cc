#include "exec/plan_interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <variant>
#include <vector>

#include "common/overloaded.h"
#include "exec/adam_config.h"
#include "exec/batches.h"
#include "exec/loss_scaler.h"
#include "exec/lr_schedule.h"
#include "kernels/cpu/grad_norm.h"

namespace zs::exec {

namespace {

using Clock = std::chrono::steady_clock;

// What DeepSpeed 0.19.6 does when the gradients of a step without loss scaling (bf16, fp32)
// hold inf or NaN. Its helpers mask a non-finite norm to -1 (runtime/utils.py
// get_global_norm_of_tensors / mask_nan_or_inf_with_val_inplace).
enum class NonFinitePolicy {
  // bf16 at ZeRO 1/2 with bf16.check_grad_overflow (default true since 0.17.1): the step is
  // skipped as an fp16 overflow is (zero/stage_1_and_2.py step: check_overflow, then return on
  // overflow; engine.py _configure_zero_optimizer passes the flag for bf16 only).
  kSkip,
  // ZeRO 1/2 otherwise (fp32, or the check off) and ZeRO 3 (stage3.py checks fp16 only): the
  // masked -1 per group becomes 1 in torch.linalg.vector_norm of the group norms
  // (scaled_global_norm), unscale_and_clip_grads divides by max(1, (1 + 1e-6) / clip), and the
  // optimizer runs on the inf/NaN gradients.
  kApplyMaskedNorm,
  // fp32 at stage 0: engine.py _take_model_step -> clip_fp32_gradients -> utils.py
  // clip_grad_norm_, whose coefficient min(clip / (norm + 1e-6), 1) is 0 for an inf norm and NaN
  // for a NaN one (no masking there); the optimizer runs.
  kApplyTorchClip,
  // bf16 at stage 0: FP16_Optimizer with bf16 (fused_optimizer.py step) skips only when it
  // scales gradients, so the -1 norm clips nothing and the optimizer runs; the engine still sees
  // optimizer.overflow and holds the LR schedule (engine.py _take_model_step).
  kApplyHoldLr,
};

NonFinitePolicy non_finite_policy(const configs::DsConfig& c, configs::Precision precision) {
  const std::int64_t stage = c.zero.stage.value;
  if (stage == 0) {
    return precision == configs::Precision::kBf16 ? NonFinitePolicy::kApplyHoldLr
                                                  : NonFinitePolicy::kApplyTorchClip;
  }
  if (stage < 3 && precision == configs::Precision::kBf16 && c.bf16.check_grad_overflow.value) {
    return NonFinitePolicy::kSkip;
  }
  return NonFinitePolicy::kApplyMaskedNorm;
}

class Interpreter {
 public:
  Interpreter(const plan::BuiltPlan& built, const configs::DsConfig& config,
              const ExecOptions& options, StepBackend& backend, kernels::cpu::AdamConfig adam,
              LrSchedule lr)
      : plan_(built.plan),
        layout_(built.layout),
        config_(config),
        options_(options),
        backend_(backend),
        adam_(adam),
        lr_(lr),
        batches_(built.layout.graph->workload, built.layout.graph->spec.vocab_size, options.text,
                 options.seed + 1) {}

  Status init() {
    ZS_RETURN_IF_ERROR(batches_.check());
    if (layout_.precision == configs::Precision::kFp16) {
      ZS_ASSIGN_OR_RETURN(const LossScalerOptions so, loss_scaler_options(config_));
      scaler_.emplace(so);
    }
    return Status::ok();
  }

  Result<ExecResult> run() {
    ExecResult out;
    out.tokens_per_step = layout_.tokens_per_step();
    for (int step = 0; step < options_.steps; ++step) {
      ZS_ASSIGN_OR_RETURN(StepStats s, run_step(step, step + 1 == options_.steps, &out.timeline));
      out.skipped_steps += s.skipped ? 1 : 0;
      if (options_.on_step) options_.on_step(s);
      out.steps.push_back(s);
    }
    out.final_loss_scale = scaler_ ? scaler_->scale() : 1.0;
    return out;
  }

 private:
  Result<StepStats> run_step(int step, bool record, std::vector<OpTiming>* timeline) {
    StepStats s;
    s.step = step;
    s.loss_scale = scaler_ ? scaler_->scale() : 1.0;
    s.lr = lr_.at(lr_steps_);
    prepared_ = false;
    skip_ = false;
    hold_lr_ = false;
    micro_steps_ = 0;
    const Clock::time_point t0 = Clock::now();
    backend_.begin_step(s.loss_scale, record);
    for (const plan::Segment& seg : plan_.segments) {
      for (int rep = 0; rep < seg.repeat; ++rep) {
        for (int i = seg.first_op; i < seg.end_op; ++i) {
          backend_.begin_op(i, rep);
          ZS_RETURN_IF_ERROR(run_op(i, step, &s));
          backend_.end_op(i, rep);
        }
      }
    }
    if (!prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, &s));  // a plan with no optimizer op
    StepEnd end = backend_.end_step(!skip_);
    if (!skip_) ++applied_steps_;
    if (!skip_ && !hold_lr_) ++lr_steps_;
    s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    s.skipped = skip_;
    ZS_CHECK(static_cast<int>(end.losses.size()) == micro_steps_);
    double loss_sum = 0;
    for (double l : end.losses) loss_sum += l;
    s.loss = micro_steps_ > 0 ? loss_sum / micro_steps_ : 0.0;
    if (record) *timeline = std::move(end.timeline);
    return s;
  }

  Status run_op(int i, int step, StepStats* s) {
    const plan::Op& op = plan_.ops[static_cast<std::size_t>(i)];
    if (op.skipped_on_overflow && !prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, s));
    if (op.skipped_on_overflow && skip_) return Status::ok();
    // On one rank collectives move nothing; copies, casts, syncs and NVMe work move no values
    // (bracketed, and so timed, by the backend).
    const auto nothing = [](const auto&) { return Status::ok(); };
    return std::visit(Overloaded{
                          [&](const plan::ComputeWork& c) -> Status {
                            if (c.begins_micro_step) {
                              batches_.next(&inputs_, &targets_);
                              ZS_RETURN_IF_ERROR(backend_.set_batch(inputs_, targets_));
                            }
                            ZS_RETURN_IF_ERROR(backend_.compute(c));
                            if (c.drop_first_model_op >= 0) {
                              backend_.drop_activations(c.drop_first_model_op, c.last_model_op);
                            }
                            if (c.ends_micro_step) ++micro_steps_;
                            return Status::ok();
                          },
                          [&](const plan::OptimizerWork& o) -> Status {
                            if (!prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, s));
                            if (!skip_) adam(o.first_elem, o.numel, s->lr);
                            return Status::ok();
                          },
                          [&](const plan::CollectiveWork& w) { return nothing(w); },
                          [&](const plan::MemoryWork& w) { return nothing(w); },
                          [&](const plan::CopyWork& w) { return nothing(w); },
                          [&](const plan::NvmeWork& w) { return nothing(w); },
                          [&](const plan::SyncWork& w) { return nothing(w); },
                      },
                      op.work);
  }

  // The overflow check, the loss scaler and the unscale-and-clip, once per step, before the
  // first op an overflow would skip (stage_1_and_2.py / stage3.py step()).
  Status prepare_step(int step, StepStats* s) {
    prepared_ = true;
    if (step == options_.inject_overflow_step && backend_.num_params() > 0) {
      backend_.inject_overflow();
    }
    if (scaler_) {
      const bool overflow = backend_.grads_have_inf_or_nan();
      skip_ = scaler_->update(overflow);
      if (scaler_->exhausted()) {
        return Status::invalid_argument("the fp16 loss scale reached min_loss_scale at step " +
                                        std::to_string(step) + ": DeepSpeed stops here");
      }
      if (skip_) return Status::ok();
    }
    const double norm = std::sqrt(backend_.grads_sum_squares());
    s->grad_norm = norm / s->loss_scale;
    const double clip = config_.gradient_clipping.value;
    if (std::isfinite(norm)) {
      backend_.scale_grads(kernels::cpu::combined_scale(norm, s->loss_scale, clip));
      return Status::ok();
    }
    // Only without a loss scaler: with one, an inf/NaN gradient is an overflow (above).
    s->non_finite_grads = true;
    switch (non_finite_policy(config_, layout_.precision)) {
      case NonFinitePolicy::kSkip:
        skip_ = true;
        break;
      case NonFinitePolicy::kApplyMaskedNorm:
        backend_.scale_grads(kernels::cpu::combined_scale(1.0, 1.0, clip));
        break;
      case NonFinitePolicy::kApplyTorchClip:
        if (clip > 0) backend_.scale_grads(kernels::cpu::torch_clip_divisor(norm, clip));
        break;
      case NonFinitePolicy::kApplyHoldLr:
        hold_lr_ = true;
        break;
    }
    return Status::ok();
  }

  // AdamW over the master weights [first, first + numel) (a ZeRO sub-group or partition),
  // clamped to the model (a padded partition's tail has no weights).
  void adam(std::int64_t first, std::int64_t numel, double lr) {
    const std::int64_t n = std::min(numel, backend_.num_params() - first);
    if (n <= 0) return;
    kernels::cpu::AdamConfig a = adam_;
    a.lr = static_cast<float>(lr);
    backend_.adam(first, n, a, applied_steps_ + 1);
  }

  const plan::Plan& plan_;
  const plan::Layout& layout_;
  const configs::DsConfig& config_;
  const ExecOptions& options_;
  StepBackend& backend_;
  kernels::cpu::AdamConfig adam_;
  LrSchedule lr_;
  Batches batches_;
  std::optional<DynamicLossScaler> scaler_;
  std::vector<std::int32_t> inputs_, targets_;  // (b * s)
  std::int64_t applied_steps_ = 0;              // optimizer steps taken (Adam's step count)
  std::int64_t lr_steps_ = 0;                   // LR scheduler steps taken
  bool prepared_ = false;
  bool skip_ = false;
  bool hold_lr_ = false;  // the step runs but the LR schedule does not advance
  int micro_steps_ = 0;
};

}  // namespace

Result<ExecResult> interpret_plan(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                  const ExecOptions& options, StepBackend& backend) {
  ZS_CHECK(built.plan.world_size == 1);
  ZS_ASSIGN_OR_RETURN(const kernels::cpu::AdamConfig adam, adam_config(config));
  ZS_ASSIGN_OR_RETURN(const LrSchedule lr, lr_schedule(config, adam.lr));
  Interpreter interpreter(built, config, options, backend, adam, lr);
  ZS_RETURN_IF_ERROR(interpreter.init());
  return interpreter.run();
}

}  // namespace zs::exec
