#include "exec/plan_interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "common/overloaded.h"
#include "exec/adam_config.h"
#include "exec/batches.h"
#include "exec/collective_buffer.h"
#include "exec/communicator.h"
#include "exec/loss_scaler.h"
#include "exec/lr_schedule.h"
#include "exec/model_runner.h"
#include "exec/owned_runs.h"
#include "exec/rank_tensors.h"
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
              const ExecOptions& options, StepBackend& backend, Communicator& comm,
              kernels::cpu::AdamConfig adam, LrSchedule lr)
      : plan_(built.plan),
        layout_(built.layout),
        config_(config),
        options_(options),
        backend_(backend),
        comm_(comm),
        adam_(adam),
        lr_(lr),
        batches_(built.layout.graph->workload, built.layout.graph->spec.vocab_size, options.text,
                 options.seed + 1, comm.rank(), comm.size()) {}

  Status init() {
    ZS_RETURN_IF_ERROR(batches_.check());
    if (comm_.size() != plan_.world_size) {
      return Status::invalid_argument("the plan is for " + std::to_string(plan_.world_size) +
                                      " ranks and this run has " + std::to_string(comm_.size()));
    }
    std::int64_t numel = 0;
    param_offsets_ = ModelRunner::param_offsets(layout_.params(), &numel);
    owned_ = owned_runs(layout_, comm_.rank());
    by_flat_ = PartitionStore(owned_);
    tensors_ = &backend_.rank_tensors();
    maps_.resize(plan_.ops.size());
    moves_.resize(plan_.ops.size());
    init_copies();
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
    if (options_.keep_weights) out.final_weights = tensors_->working_weights();
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
    normed_ = false;
    grads_final_ = false;
    reduced_any_ = false;
    flag_ = std::nullopt;
    norm_ = std::nullopt;
    offloaded_ = false;
    const Clock::time_point t0 = Clock::now();
    // engine.py backward: loss / gradient_accumulation_steps (scale_wrt_gas), so the gradients
    // are the mean over the micro-steps, times the fp16 loss scale.
    backend_.begin_step(s.loss_scale / plan_.micro_steps, record);
    tensors_->begin_step();
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
    if (!normed_) ZS_RETURN_IF_ERROR(apply_norm(&s));
    // The step's update reaches the working weights by the Plan's parameter copies when it has
    // them (offload), else here, unless a gather already published it.
    if (!param_copies_) publish_partition();
    StepEnd end = backend_.end_step();
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

  // Op i's work, with the step decision the Plan puts at it (plan.h StepRole): the unscale and
  // clip before its work, the overflow decision and the norm after it.
  Status run_op(int i, int step, StepStats* s) {
    const plan::Op& op = plan_.ops[static_cast<std::size_t>(i)];
    ZS_CHECK_MSG(prepared_ || !op.skipped_on_overflow,
                 "the plan skips an op on overflow before its overflow decision");
    if (op.skipped_on_overflow && skip_) return Status::ok();
    if (op.step_role == plan::StepRole::kUnscaleClip) ZS_RETURN_IF_ERROR(apply_norm(s));
    ZS_RETURN_IF_ERROR(run_work(i, step, s));
    switch (op.step_role) {
      case plan::StepRole::kOverflowDecision:
        return prepare_step(step, s);
      case plan::StepRole::kGradNorm:
        take_norm();
        return Status::ok();
      case plan::StepRole::kNone:
      case plan::StepRole::kUnscaleClip:
        return Status::ok();
    }
    ZS_UNREACHABLE();
  }

  Status run_work(int i, int step, const StepStats* s) {
    const plan::Op& op = plan_.ops[static_cast<std::size_t>(i)];
    // Copies, casts, syncs and NVMe work move no values (bracketed, and so timed, by the
    // backend); a collective over a group of one leaves its data as it is.
    const auto nothing = [](const auto&) { return Status::ok(); };
    return std::visit(Overloaded{
                          [&](const plan::ComputeWork& c) -> Status {
                            if (c.begins_micro_step) {
                              batches_.next(&inputs_, &targets_);
                              ZS_RETURN_IF_ERROR(backend_.set_batch(inputs_, targets_));
                              // An overflow is a gradient gone inf in backward: put it in
                              // before the last micro-step's, ahead of every reduction.
                              if (step == options_.inject_overflow_step &&
                                  comm_.rank() == options_.inject_overflow_rank &&
                                  micro_steps_ + 1 == plan_.micro_steps &&
                                  backend_.num_params() > 0) {
                                backend_.inject_overflow();
                              }
                            }
                            ZS_RETURN_IF_ERROR(backend_.compute(c));
                            if (c.drop_first_model_op >= 0) {
                              backend_.drop_activations(c.drop_first_model_op, c.last_model_op);
                            }
                            if (c.ends_micro_step) ++micro_steps_;
                            return Status::ok();
                          },
                          [&](const plan::OptimizerWork& o) -> Status {
                            ZS_CHECK_MSG(normed_,
                                         "the plan's optimizer runs before its "
                                         "unscale-and-clip");
                            if (!skip_) adam(o.first_elem, o.numel, s->lr, o.on_cpu);
                            return Status::ok();
                          },
                          [&](const plan::CollectiveWork& w) -> Status {
                            if (w.group_size == 1) return Status::ok();
                            return collective(i, w);
                          },
                          [&](const plan::MemoryWork& w) { return nothing(w); },
                          [&](const plan::CopyWork& w) -> Status {
                            copy(i, w);
                            return Status::ok();
                          },
                          [&](const plan::NvmeWork& w) { return nothing(w); },
                          [&](const plan::SyncWork& w) { return nothing(w); },
                      },
                      op.work);
  }

  // The overflow check and the loss scaler, once per step, before the first op an overflow
  // would skip (stage_1_and_2.py / stage3.py step()): from the group's flag when the Plan
  // all-reduced one, else from this rank's gradients (identical on every rank then).
  Status prepare_step(int step, StepStats* s) {
    finish_reductions();
    prepared_ = true;
    if (!scaler_) {
      // bf16 ZeRO 1/2 with check_grad_overflow skips on the group's flag.
      if (flag_ && *flag_ &&
          non_finite_policy(config_, layout_.precision) == NonFinitePolicy::kSkip) {
        s->non_finite_grads = true;
        skip_ = true;
      }
      return Status::ok();
    }
    const bool overflow = flag_ ? *flag_ : backend_.grads_have_inf_or_nan();
    skip_ = scaler_->update(overflow);
    if (scaler_->exhausted()) {
      return Status::invalid_argument("the fp16 loss scale reached min_loss_scale at step " +
                                      std::to_string(step) + ": DeepSpeed stops here");
    }
    return Status::ok();
  }

  // The global gradient norm, once the step's reductions are done: the group's when the Plan
  // all-reduced it, else this rank's gradients' (identical on every rank then).
  void take_norm() {
    finish_reductions();
    if (!norm_) norm_ = std::sqrt(backend_.grads_sum_squares());
  }

  // The unscale-and-clip by the global norm, at the Plan's kUnscaleClip op (or at the end of a
  // step without one).
  Status apply_norm(StepStats* s) {
    finish_reductions();
    normed_ = true;
    if (skip_) return Status::ok();
    take_norm();
    const double norm = *norm_;
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

  // AdamW over elements [first, first + numel) of this rank's partition (a ZeRO sub-group or
  // the whole partition), each run of it where it lies in the flat arrays; a padded
  // partition's tail has no weights.
  void adam(std::int64_t first, std::int64_t numel, double lr, bool on_cpu) {
    kernels::cpu::AdamConfig a = adam_;
    a.lr = static_cast<float>(lr);
    published_ = false;
    for (const OwnedRun& r : owned_) {
      const std::int64_t b = std::max(first, r.first_elem);
      const std::int64_t e = std::min(first + numel, r.first_elem + r.n);
      if (b < e) backend_.adam(r.flat + b - r.first_elem, e - b, a, applied_steps_ + 1, on_cpu);
    }
  }

  // --- The data-parallel group (world > 1). ---

  // Op `op`'s buffer map (a collective's, or a copy's slices back to back), made on first use.
  const BufferMap& map_of(int op) {
    std::optional<BufferMap>& m = maps_[static_cast<std::size_t>(op)];
    if (m) return *m;
    const plan::Work& work = plan_.ops[static_cast<std::size_t>(op)].work;
    if (const auto* c = std::get_if<plan::CollectiveWork>(&work)) {
      m = buffer_map(plan_, *c, param_offsets_);
    } else {
      m.emplace();
      m->runs = concatenated_runs(plan_.slices(std::get<plan::CopyWork>(work)), param_offsets_);
    }
    return *m;
  }

  // The working weights of this rank's partition become its master weights rounded, once per
  // AdamW update.
  void publish_partition() {
    if (published_) return;
    for (const OwnedRun& r : owned_) backend_.publish(r.flat, r.n);
    published_ = true;
  }

  Status collective(int op, const plan::CollectiveWork& w) {
    const auto where = [&] { return "op " + std::string(plan_.op_name(op)) + ": "; };
    if (w.group_size != comm_.size()) {
      return Status::invalid_argument(
          where() + "a collective over " + std::to_string(w.group_size) + " of the " +
          std::to_string(comm_.size()) +
          " ranks (ZeRO++ hpZ's subgroups) is not one this executor runs");
    }
    const float inv_n = 1.0f / static_cast<float>(w.group_size);
    const Bytes e = plan::dtype_size(w.dtype);
    switch (w.role) {
      case plan::CollectiveRole::kGradients: {
        // The gradient elements leave the model's gradients (DeepSpeed frees param.grad once
        // reduced) and their sum lands in the reduced gradients.
        const BufferMap& m = map_of(op);
        std::byte* buffer = tensors_->buffer(m.elems * e);
        const float before = w.average == plan::Average::kDivideBefore ? inv_n : 1.0f;
        const float after = w.average == plan::Average::kMultiplyAfter ? inv_n : 1.0f;
        tensors_->take_grads(op, m, before, w.dtype, buffer);
        std::int64_t lo = 0, hi = m.elems;
        switch (w.kind) {
          case plan::CollectiveKind::kAllReduce:
            ZS_RETURN_IF_ERROR(comm_.all_reduce(buffer, m.elems, w.dtype));
            break;
          case plan::CollectiveKind::kReduce:
            ZS_RETURN_IF_ERROR(comm_.reduce(buffer, m.elems, w.dtype, w.root));
            break;
          case plan::CollectiveKind::kReduceScatter:
            ZS_RETURN_IF_ERROR(comm_.reduce_scatter(buffer, m.block_elems, w.dtype));
            lo = comm_.rank() * m.block_elems;
            hi = lo + m.block_elems;
            break;
          default:
            return Status::invalid_argument(where() + "a gradient " +
                                            std::string(collective_name(w.kind)) +
                                            " is not one this executor runs");
        }
        tensors_->add_reduced(op, m, buffer, after, w.dtype, lo, hi);
        reduced_any_ = true;
        return Status::ok();
      }
      case plan::CollectiveRole::kParams: {
        // This rank's block is its partition of the working weights (the master weights
        // rounded to the model dtype: DeepSpeed's fp32 -> 16-bit partition copy); the others'
        // blocks land in its working weights.
        if (w.kind != plan::CollectiveKind::kAllGather) break;
        const BufferMap& m = map_of(op);
        std::byte* buffer = tensors_->buffer(m.elems * e);
        const std::int64_t lo = comm_.rank() * m.block_elems;
        const std::int64_t hi = lo + m.block_elems;
        if (!param_copies_) publish_partition();
        tensors_->pack_weights(op, m, w.dtype, lo, hi, buffer);
        ZS_RETURN_IF_ERROR(comm_.all_gather(buffer, m.block_elems, w.dtype));
        tensors_->place_weights(op, m, buffer, w.dtype, 0, lo);
        tensors_->place_weights(op, m, buffer, w.dtype, hi, m.elems);
        return Status::ok();
      }
      case plan::CollectiveRole::kOverflowFlag: {
        finish_reductions();
        std::uint8_t flag = backend_.grads_have_inf_or_nan() ? 1 : 0;
        ZS_RETURN_IF_ERROR(all_reduce_scalar(&flag, plan::Dtype::kU8));
        flag_ = flag != 0;
        return Status::ok();
      }
      case plan::CollectiveRole::kNormSquares:
      case plan::CollectiveRole::kNormMean: {
        finish_reductions();
        const double squares = backend_.grads_sum_squares();
        const bool mean = w.role == plan::CollectiveRole::kNormMean;
        const double local = mean ? std::sqrt(squares) / w.group_size : squares;
        double total = 0;
        if (w.dtype == plan::Dtype::kFp64) {
          total = local;
          ZS_RETURN_IF_ERROR(all_reduce_scalar(&total, w.dtype));
        } else if (w.dtype == plan::Dtype::kFp32) {
          float x = static_cast<float>(local);
          ZS_RETURN_IF_ERROR(all_reduce_scalar(&x, w.dtype));
          total = x;
        } else {
          break;
        }
        norm_ = mean ? total : std::sqrt(total);
        return Status::ok();
      }
      case plan::CollectiveRole::kOther:
        break;
    }
    return Status::invalid_argument(where() + std::string(collective_name(w.kind)) + " of " +
                                    std::string(plan::collective_role_name(w.role)) + " in " +
                                    std::string(plan::dtype_name(w.dtype)) +
                                    " is not a collective this executor runs");
  }

  // One element of `dtype` at `value`, all-reduced through the backend's scalar (where the
  // communicator reads).
  Status all_reduce_scalar(void* value, plan::Dtype dtype) {
    const Bytes bytes = plan::dtype_size(dtype);
    tensors_->write_scalar(value, bytes);
    ZS_RETURN_IF_ERROR(comm_.all_reduce(tensors_->scalar(), 1, dtype));
    tensors_->read_scalar(value, bytes);
    return Status::ok();
  }

  // After the step's last gradient reduction: the model's gradients become the reduced ones of
  // this rank's partition (from the host when the Plan copied them there: CPU offload), zero
  // elsewhere, so the optimizer step reads its partition only.
  void finish_reductions() {
    if (grads_final_) return;
    grads_final_ = true;
    if (!reduced_any_ && !offloaded_) return;
    tensors_->take_partition(
        offloaded_ ? RankTensors::GradSource::kHost : RankTensors::GradSource::kReduced, owned_);
  }

  // --- CPU offload's copies (plan.h CopyRole). ---

  void init_copies() {
    for (const plan::Op& op : plan_.ops) {
      const auto* c = std::get_if<plan::CopyWork>(&op.work);
      if (c == nullptr || c->role == plan::CopyRole::kOther) continue;
      copies_ = true;
      param_copies_ = param_copies_ || c->role == plan::CopyRole::kParams;
    }
  }

  // Copy op `op`'s gradient elements that lie in this rank's partition, made on first use.
  const std::vector<BufferRun>& moves_of(int op) {
    std::optional<std::vector<BufferRun>>& m = moves_[static_cast<std::size_t>(op)];
    if (m) return *m;
    m.emplace();
    for (const BufferRun& r : map_of(op).runs) {
      // The owned runs (sorted by flat) that overlap [r.flat, r.flat + r.n).
      const std::vector<OwnedRun>& owned = by_flat_.runs();
      auto it = std::upper_bound(owned.begin(), owned.end(), r.flat,
                                 [](std::int64_t x, const OwnedRun& o) { return x < o.flat; });
      if (it != owned.begin()) --it;
      for (; it != owned.end() && it->flat < r.flat + r.n; ++it) {
        const std::int64_t b = std::max(r.flat, it->flat);
        const std::int64_t e = std::min(r.flat + r.n, it->flat + it->n);
        if (b < e) m->push_back({r.pos + b - r.flat, b, e - b});
      }
    }
    return *m;
  }

  void copy(int op, const plan::CopyWork& c) {
    if (!copies_ || c.role == plan::CopyRole::kOther) return;
    if (c.role == plan::CopyRole::kParams) {
      // The elements the optimizer op just updated, as they lie in this rank's partition.
      const auto& o = std::get<plan::OptimizerWork>(plan_.ops[c.source_op].work);
      for (const OwnedRun& r : owned_) {
        const std::int64_t b = std::max(o.first_elem, r.first_elem);
        const std::int64_t e = std::min(o.first_elem + o.numel, r.first_elem + r.n);
        if (b < e) backend_.publish(r.flat + b - r.first_elem, e - b);
      }
      return;
    }
    // Gradients: this rank's partition's elements among the slices move between the pools.
    tensors_->move_grads(op, moves_of(op), c.host_to_device);
    offloaded_ = offloaded_ || !c.host_to_device;
  }

  const plan::Plan& plan_;
  const plan::Layout& layout_;
  const configs::DsConfig& config_;
  const ExecOptions& options_;
  StepBackend& backend_;
  Communicator& comm_;
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
  bool normed_ = false;   // apply_norm has run this step
  int micro_steps_ = 0;

  std::vector<OwnedRun> owned_;                 // this rank's partition in the flat arrays
  std::vector<std::int64_t> param_offsets_;     // per parameter id (ModelRunner::param_offset)
  PartitionStore by_flat_{{}};                  // owned_ in flat order (moves_of reads it)
  RankTensors* tensors_ = nullptr;              // the backend's
  std::vector<std::optional<BufferMap>> maps_;  // per op, built on first use
  std::vector<std::optional<std::vector<BufferRun>>> moves_;  // per copy op, built on first use
  bool reduced_any_ = false;                                  // a gradient reduction ran this step
  bool grads_final_ = false;                                  // finish_reductions has run this step
  // The working weights of this rank's partition are its master weights rounded (no AdamW
  // since the last publish_partition).
  bool published_ = true;
  // CPU offload: the Plan moves gradients and parameters between the pools (init_copies).
  bool copies_ = false;
  bool param_copies_ = false;   // a CopyWork carries the updated parameters up
  bool offloaded_ = false;      // gradients went to the host this step
  std::optional<bool> flag_;    // the group's overflow flag, when all-reduced
  std::optional<double> norm_;  // the group's gradient norm, when all-reduced
};

}  // namespace

Result<ExecResult> interpret_plan(const plan::BuiltPlan& built, const configs::DsConfig& config,
                                  const ExecOptions& options, StepBackend& backend) {
  ZS_ASSIGN_OR_RETURN(const kernels::cpu::AdamConfig adam, adam_config(config));
  ZS_ASSIGN_OR_RETURN(const LrSchedule lr, lr_schedule(config, adam.lr));
  std::unique_ptr<Communicator> self;
  Communicator* comm = options.communicator;
  if (comm == nullptr) {
    self = make_self_communicator();
    comm = self.get();
  }
  Interpreter interpreter(built, config, options, backend, *comm, adam, lr);
  ZS_RETURN_IF_ERROR(interpreter.init());
  return interpreter.run();
}

}  // namespace zs::exec
