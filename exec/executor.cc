#include "exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <variant>

#include "exec/model_runner.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/grad_norm.h"

namespace zs::exec {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t ns_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

// AdamW's hyperparameters from the config's optimizer section ("auto" already resolved);
// TrainingArguments' defaults where it has none (the HF Trainer builds AdamW then).
Result<kernels::cpu::AdamConfig> adam_config(const configs::DsConfig& c) {
  kernels::cpu::AdamConfig a;
  a.lr = 5e-5f;
  const configs::OptimizerConfig& o = c.optimizer;
  if (!o.present) return a;
  const std::string& type = o.type.value;
  if (type != "Adam" && type != "AdamW" && type != "adam" && type != "adamw") {
    return Status::invalid_argument("optimizer.type: \"" + type +
                                    "\" is not implemented by `zerosim run` (Adam or AdamW)");
  }
  // ops/adam/fused_adam.py: "AdamW" always decays decoupled; "Adam" unless adam_w_mode is off.
  const bool adamw = type == "AdamW" || type == "adamw" || o.adam_w_mode.value;
  a.mode = adamw ? kernels::cpu::AdamMode::kAdamW : kernels::cpu::AdamMode::kL2;
  if (o.lr.is_set() && !o.lr.is_auto()) a.lr = static_cast<float>(o.lr.value);
  if (o.eps.is_set() && !o.eps.is_auto()) a.eps = static_cast<float>(o.eps.value);
  if (o.weight_decay.is_set() && !o.weight_decay.is_auto()) {
    a.weight_decay = static_cast<float>(o.weight_decay.value);
  }
  if (o.betas.is_set() && !o.betas.is_auto()) {
    if (o.betas.value.size() != 2) {
      return Status::invalid_argument("optimizer.params.betas: expected two numbers");
    }
    a.beta1 = static_cast<float>(o.betas.value[0]);
    a.beta2 = static_cast<float>(o.betas.value[1]);
  }
  return a;
}

// Micro-batches of byte-level (or random) tokens: b windows of s + 1 consecutive tokens, inputs
// the first s, targets the last s; each window starts where the previous one's inputs ended,
// wrapping around the text.
class Batches {
 public:
  Batches(const models::Workload& w, std::int64_t vocab, const std::string& text,
          std::uint64_t seed)
      : w_(w), vocab_(vocab), rng_(seed) {
    tokens_.assign(text.begin(), text.end());
    for (std::int32_t& t : tokens_) t = static_cast<unsigned char>(t);
  }

  Status check() const {
    if (tokens_.empty()) return Status::ok();
    if (static_cast<std::int64_t>(tokens_.size()) < w_.seq_len + 1) {
      return Status::invalid_argument("the training text has " + std::to_string(tokens_.size()) +
                                      " bytes; one sequence needs " +
                                      std::to_string(w_.seq_len + 1));
    }
    if (vocab_ < 256) {
      return Status::invalid_argument("byte-level tokens need a vocabulary of at least 256; "
                                      "the model has " + std::to_string(vocab_));
    }
    return Status::ok();
  }

  void next(std::vector<std::int32_t>* inputs, std::vector<std::int32_t>* targets) {
    const std::int64_t s = w_.seq_len;
    inputs->resize(static_cast<std::size_t>(w_.tokens()));
    targets->resize(inputs->size());
    std::uniform_int_distribution<std::int32_t> pick(0, static_cast<std::int32_t>(vocab_ - 1));
    const auto n = static_cast<std::int64_t>(tokens_.size());
    for (std::int64_t b = 0; b < w_.micro_batch; ++b) {
      for (std::int64_t i = 0; i <= s; ++i) {
        const std::int32_t tok =
            n == 0 ? pick(rng_) : tokens_[static_cast<std::size_t>((cursor_ + i) % n)];
        if (i < s) (*inputs)[static_cast<std::size_t>(b * s + i)] = tok;
        if (i > 0) (*targets)[static_cast<std::size_t>(b * s + i - 1)] = tok;
      }
      if (n > 0) cursor_ = (cursor_ + s) % n;
    }
  }

 private:
  models::Workload w_;
  std::int64_t vocab_;
  std::vector<std::int32_t> tokens_;
  std::int64_t cursor_ = 0;
  std::mt19937_64 rng_;
};

class Executor {
 public:
  Executor(const plan::BuiltPlan& built, const configs::DsConfig& config, ModelRunner runner,
           kernels::cpu::AdamConfig adam, LrSchedule lr, const ExecOptions& options)
      : plan_(built.plan), layout_(built.layout), config_(config), runner_(std::move(runner)),
        adam_(adam), lr_(lr), options_(options),
        batches_(runner_.workload(), runner_.spec().vocab_size, options.text, options.seed + 1) {
    master_.assign(runner_.flat_params().begin(), runner_.flat_params().end());
    exp_avg_.assign(master_.size(), 0.0f);
    exp_avg_sq_.assign(master_.size(), 0.0f);
    publish_weights();
  }

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
    out.tokens_per_step = layout_.micro_batch * layout_.seq_len * layout_.micro_steps;
    for (int step = 0; step < options_.steps; ++step) {
      ZS_ASSIGN_OR_RETURN(StepStats s, run_step(step, step + 1 == options_.steps));
      out.skipped_steps += s.skipped ? 1 : 0;
      out.steps.push_back(s);
    }
    out.timeline = std::move(timeline_);
    out.final_loss_scale = scaler_ ? scaler_->scale() : 1.0;
    return out;
  }

 private:
  Result<StepStats> run_step(int step, bool record) {
    StepStats s;
    s.step = step;
    s.loss_scale = scaler_ ? scaler_->scale() : 1.0;
    s.lr = lr_.at(applied_steps_);
    runner_.set_loss_scale(static_cast<float>(s.loss_scale));
    prepared_ = false;
    skip_ = false;
    cursor_ = 0;
    loss_sum_ = 0;
    micro_steps_ = 0;
    timeline_.clear();
    const Clock::time_point t0 = Clock::now();
    for (const plan::Segment& seg : plan_.segments) {
      for (int rep = 0; rep < seg.repeat; ++rep) {
        for (int i = seg.first_op; i < seg.end_op; ++i) {
          const std::int64_t start = record ? ns_since(t0) : 0;
          ZS_RETURN_IF_ERROR(run_op(i, step, &s));
          if (record) timeline_.push_back(OpTiming{i, rep, start, ns_since(t0)});
        }
      }
    }
    if (!prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, &s));  // a plan with no optimizer op
    if (!skip_) {
      publish_weights();
      ++applied_steps_;
    }
    runner_.zero_grads();
    s.seconds = static_cast<double>(ns_since(t0)) * 1e-9;
    s.skipped = skip_;
    s.loss = micro_steps_ > 0 ? loss_sum_ / micro_steps_ : 0.0;
    return s;
  }

  Status run_op(int i, int step, StepStats* s) {
    const plan::Op& op = plan_.ops[i];
    if (op.skipped_on_overflow && !prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, s));
    if (op.skipped_on_overflow && skip_) return Status::ok();
    if (const auto* c = std::get_if<plan::ComputeWork>(&op.work)) {
      switch (c->pass) {
        case plan::Pass::kForward:
          if (c->first_model_op == 0) {
            batches_.next(&inputs_, &targets_);
            ZS_RETURN_IF_ERROR(runner_.set_batch(inputs_, targets_));
          }
          runner_.forward(c->first_model_op, c->last_model_op);
          if (c->last_model_op == runner_.num_ops() - 1) {
            loss_sum_ += runner_.loss();
            ++micro_steps_;
          }
          break;
        case plan::Pass::kRecompute:
          runner_.recompute(c->first_model_op, c->last_model_op);
          break;
        case plan::Pass::kBackward:
          runner_.backward(c->first_model_op, c->last_model_op);
          break;
      }
    } else if (const auto* o = std::get_if<plan::OptimizerWork>(&op.work)) {
      if (!prepared_) ZS_RETURN_IF_ERROR(prepare_step(step, s));
      if (!skip_) adam(o->numel, s->lr);
    }
    // Collectives over one rank, copies, casts, syncs: nothing moves on the CPU backend.
    return Status::ok();
  }

  // The overflow check, the loss scaler and the unscale-and-clip, once per step, before the
  // first op an overflow would skip (stage_1_and_2.py / stage3.py step()).
  Status prepare_step(int step, StepStats* s) {
    prepared_ = true;
    std::span<float> grads = runner_.flat_grads();
    if (step == options_.inject_overflow_step && !grads.empty()) {
      grads[0] = std::numeric_limits<float>::infinity();
    }
    if (scaler_) {
      const bool overflow = kernels::cpu::has_inf_or_nan(grads.data(),
                                                         static_cast<std::int64_t>(grads.size()));
      skip_ = scaler_->update(overflow);
      if (scaler_->exhausted()) {
        return Status::invalid_argument("the fp16 loss scale reached min_loss_scale at step " +
                                        std::to_string(step) + ": DeepSpeed stops here");
      }
      if (skip_) return Status::ok();
    }
    const double sq = kernels::cpu::sum_squares(grads.data(), static_cast<std::int64_t>(grads.size()));
    const double norm = std::sqrt(sq);
    s->grad_norm = norm / s->loss_scale;
    const double divisor =
        kernels::cpu::combined_scale(norm, s->loss_scale, config_.gradient_clipping.value);
    kernels::cpu::scale_by_inverse(grads.data(), static_cast<std::int64_t>(grads.size()), divisor);
    return Status::ok();
  }

  // AdamW over the next `numel` master weights (a ZeRO sub-group or partition).
  void adam(std::int64_t numel, double lr) {
    const auto total = static_cast<std::int64_t>(master_.size());
    const std::int64_t n = std::min(numel, total - cursor_);
    if (n <= 0) return;
    kernels::cpu::AdamConfig a = adam_;
    a.lr = static_cast<float>(lr);
    const auto at = static_cast<std::size_t>(cursor_);
    kernels::cpu::adam_step(master_.data() + at, runner_.flat_grads().data() + at,
                            exp_avg_.data() + at, exp_avg_sq_.data() + at, n, a,
                            applied_steps_ + 1);
    cursor_ += n;
  }

  // The runner's weights: the master weights, rounded to the 16-bit training dtype.
  void publish_weights() {
    std::span<float> w = runner_.flat_params();
    const auto n = static_cast<std::int64_t>(w.size());
    std::copy(master_.begin(), master_.end(), w.begin());
    if (layout_.precision == configs::Precision::kBf16) {
      std::vector<kernels::cpu::Bf16> half(w.size());
      kernels::cpu::float_to_bf16(w.data(), half.data(), n);
      kernels::cpu::bf16_to_float(half.data(), w.data(), n);
    } else if (layout_.precision == configs::Precision::kFp16) {
      std::vector<kernels::cpu::Fp16> half(w.size());
      kernels::cpu::float_to_fp16(w.data(), half.data(), n);
      kernels::cpu::fp16_to_float(half.data(), w.data(), n);
    }
  }

  const plan::Plan& plan_;
  const plan::Layout& layout_;
  const configs::DsConfig& config_;
  ModelRunner runner_;
  kernels::cpu::AdamConfig adam_;
  LrSchedule lr_;
  ExecOptions options_;
  Batches batches_;
  std::optional<DynamicLossScaler> scaler_;
  std::vector<float> master_, exp_avg_, exp_avg_sq_;  // (P) fp32
  std::vector<std::int32_t> inputs_, targets_;       // (b * s)
  std::vector<OpTiming> timeline_;
  std::int64_t applied_steps_ = 0;
  std::int64_t cursor_ = 0;  // next master weight the optimizer updates this step
  bool prepared_ = false;
  bool skip_ = false;
  double loss_sum_ = 0;
  int micro_steps_ = 0;
};

}  // namespace

Result<ExecResult> execute(const plan::BuiltPlan& built, const configs::DsConfig& config,
                           const ExecOptions& options) {
  if (built.plan.world_size != 1) {
    return Status::invalid_argument("the CPU backend runs one rank per process; the plan is for " +
                                    std::to_string(built.plan.world_size) +
                                    " (use one GPU: --gpus-per-node 1)");
  }
  const plan::Layout& l = built.layout;
  const models::Workload w = l.graph->workload;
  ZS_ASSIGN_OR_RETURN(ModelRunner runner, ModelRunner::create(l.graph->spec, w, options.seed));
  ZS_ASSIGN_OR_RETURN(const kernels::cpu::AdamConfig adam, adam_config(config));
  ZS_ASSIGN_OR_RETURN(const LrSchedule lr, lr_schedule(config, adam.lr));
  Executor e(built, config, std::move(runner), adam, lr, options);
  ZS_RETURN_IF_ERROR(e.init());
  return e.run();
}

}  // namespace zs::exec
