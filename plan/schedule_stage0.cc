// Stage 0: plain data parallelism (DeepSpeed without ZeRO), as engine.py runs it at 0.19.6.
// fp16 and bf16 use FP16_Optimizer when DeepSpeed builds FusedAdam from the config, and
// FP16_UnfusedOptimizer around a client optimizer (the HF Trainer's torch AdamW): a full fp32
// master copy and optimizer states, 16-bit gradients (engine.py _do_optimizer_sanity_check;
// bf16 is DDP_BFLOAT16, the same classes). fp32 has no wrapper. After the last micro-step's
// backward the gradients are all-reduced in buckets of MEMORY_OPT_ALLREDUCE_SIZE elements on the
// compute stream, not overlapped (engine.py buffered_allreduce_fallback).
#include "plan/schedules.h"

namespace zs::plan {
namespace {

constexpr std::int64_t kAllreduceBucketElems = 500'000'000;  // engine.py MEMORY_OPT_ALLREDUCE_SIZE

void declare_states(PlanBuilder& b) {
  const Layout& l = b.layout();
  b.persistent({"params"}, l.psi * l.param_bytes, Device::kGpu, Category::kParams, true);
  if (l.precision != configs::Precision::kFp32) {
    b.persistent({"master_params.fp32"}, l.psi * 4, Device::kGpu, Category::kOptimizerStates, true);
  }
  b.persistent({"optimizer_states"}, l.psi * l.optimizer_state_bytes, Device::kGpu,
               Category::kOptimizerStates, true);
}

// allreduce_gradients after op `last_op` (engine.py buffered_allreduce_fallback): buckets of
// MEMORY_OPT_ALLREDUCE_SIZE elements on the compute stream, each flattened (a copy), cast when
// the comm dtype differs, all-reduced, scaled by 1/N after the sum (postscale_gradients, the
// default: allreduce_bucket) and copied back.
void allreduce_gradients(PlanBuilder& b, const std::string& label, int last_op) {
  const Layout& l = b.layout();
  std::int64_t bucket = 0;
  std::vector<int> in_bucket;  // whole gradients, in the bucket's order
  auto flush = [&]() {
    CollectiveWork w{.kind = CollectiveKind::kAllReduce,
                     .dtype = l.comm_dtype,
                     .role = CollectiveRole::kGradients,
                     .average = Average::kMultiplyAfter,
                     .bytes = bucket * l.comm_bytes,
                     .group_size = l.world};
    w.slices = b.whole_params(in_bucket);
    in_bucket.clear();
    const int op = b.op(b.name(label, ".allreduce.", b.plan().ops.size()), b.compute_stream(),
                        Phase::kReduce, w, {last_op});
    b.at(op).transient_bytes =
        bucket * l.param_bytes + (l.comm_bytes != l.param_bytes ? bucket * l.comm_bytes : 0);
    bucket = 0;
  };
  for (int p : l.real_params()) {
    bucket += l.params()[p].numel;
    in_bucket.push_back(p);
    if (bucket > kAllreduceBucketElems) flush();
  }
  if (bucket > 0) flush();
}

// The micro-steps of run `run`: micro-step 0 creates each block's gradients (`grads`, live to
// the step), later ones add into them (AccumulateGrad's incoming gradient); the boundary
// all-reduces them, which runs its host calls with one rank too.
void micro_steps(PlanBuilder& b, const MicroStepRun& run, std::vector<int>* grads) {
  const Layout& l = b.layout();
  const GradFlow& flow = l.flow();
  begin_micro_steps(b, run);
  MicroStepCompute model(b, run.label);
  while (!model.done()) {
    const TraceEntry t = model.next();
    const int op = model.run();
    if (t.pass != Pass::kBackward) continue;
    std::int64_t numel = 0;
    for (int p : flow.created[t.block]) numel += l.params()[p].numel;
    if (run.first == 0 && numel > 0) {
      grads->push_back(b.buffer(b.name("grads.", l.blocks()[t.block].name), numel * l.param_bytes,
                                Device::kGpu, Category::kGrads, true));
      b.alloc(op, grads->back());
    } else if (run.first > 0) {
      b.at(op).transient_bytes += flow.largest[t.block] * l.param_bytes;
      b.at(op).host_calls.add(HostTask::kAccumulateGrad,
                              static_cast<int>(flow.created[t.block].size()));
    }
  }
  const int last_op = model.finish();
  if (run.boundary) {
    const int buckets =
        static_cast<int>((l.psi + kAllreduceBucketElems - 1) / kAllreduceBucketElems);
    b.at(last_op).host_calls.add(HostTask::kStage0ReduceParam,
                                 static_cast<int>(l.real_params().size()));
    b.at(last_op).host_calls.add(HostTask::kStage0ReduceBucket, buckets);
  }
  if (run.boundary && l.world > 1) allreduce_gradients(b, run.label, last_op);
  end_micro_steps(b, run, false);
}

// The wrapper's Python and ATen calls: FP16_UnfusedOptimizer loops over the parameters
// (fp16/unfused_optimizer.py step); FP16_Optimizer's flat step is taken as ZeRO-1/2's (no
// recording of it); fp32 runs the optimizer alone.
void step_host_calls(PlanBuilder& b, bool mixed, bool fused) {
  const int params = static_cast<int>(b.layout().real_params().size());
  if (mixed && !fused) {
    b.host_calls_before_next(HostTask::kStage0StepParam, params);
    b.host_calls_before_next(HostTask::kStage0StepBody, 1);
  } else if (mixed) {
    b.host_calls_before_next(HostTask::kZeroStepParam, params);
    b.host_calls_before_next(HostTask::kZeroStepBody, 1);
  } else {
    b.host_calls_before_next(HostTask::kStage0StepBody, 1);
  }
}

// Mixed precision: CheckOverflow.has_overflow_serial (float(x.float().sum()) per parameter,
// then a flag's .item()); the norm (an .item() per group, a FloatTensor and an .item():
// runtime/utils.py). fp16 skips the rest of the step on overflow (fp16/fused_optimizer.py step).
void overflow_and_norm(PlanBuilder& b) {
  const Layout& l = b.layout();
  const int compute = b.compute_stream();
  const int sums = b.op({"step.overflow_sums"}, compute, Phase::kStep,
                        MemoryWork{l.psi * l.param_bytes, 0}, {b.last_op()});
  const int check = b.host_sync({"step.overflow_check"}, Phase::kStep, {sums},
                                static_cast<int>(l.real_params().size()) + 1);
  b.at(check).step_role = StepRole::kOverflowDecision;
  const int norm =
      b.op({"step.grad_norm"}, compute, Phase::kStep, MemoryWork{l.psi * l.param_bytes, 0});
  const int synced = b.host_sync({"step.grad_norm_sync"}, Phase::kStep, {norm}, 3);
  b.at(synced).step_role = StepRole::kGradNorm;
}

// FP16_Optimizer: a list of fp32 copies of the gradients, then their flattened copy; the 16-bit
// gradients are dropped once flattened (fp16/fused_optimizer.py step). Returns the fp32
// gradients' buffer.
int cast_grads(PlanBuilder& b, bool fused, const std::vector<int>& grads) {
  const Layout& l = b.layout();
  const std::int64_t psi = l.psi;
  const int fp32_grads = b.buffer({"step.grads.fp32"}, psi * 4, Device::kGpu, Category::kGrads);
  const int cast = b.op({"step.cast_grads"}, b.compute_stream(), Phase::kStep,
                        MemoryWork{psi * l.param_bytes, psi * 4 * (fused ? 2 : 1)});
  b.alloc(cast, fp32_grads);
  if (fused) {
    b.at(cast).transient_bytes = psi * 4;
    for (int g : grads) b.free(cast, g);
  }
  return fp32_grads;
}

// fp32 without ZeRO clips in the engine: clip_fp32_gradients -> runtime/utils.py
// clip_grad_norm_, a norm over every gradient, its all_reduce over the data-parallel group and
// a scaling of every gradient, with no host sync (engine.py _take_model_step). Returns the
// scaling op.
int clip_fp32(PlanBuilder& b) {
  const Layout& l = b.layout();
  const int compute = b.compute_stream();
  b.op({"step.grad_norm"}, compute, Phase::kStep, MemoryWork{l.psi * 4, 0}, {b.last_op()});
  const int sum = b.op({"step.grad_norm_allreduce"}, compute, Phase::kStep,
                       CollectiveWork{.kind = CollectiveKind::kAllReduce,
                                      .dtype = Dtype::kFp32,
                                      .role = CollectiveRole::kNormMean,
                                      .bytes = 4,
                                      .group_size = l.world});
  b.at(sum).step_role = StepRole::kGradNorm;
  return b.op({"step.clip_grads"}, compute, Phase::kStep, MemoryWork{l.psi * 4, l.psi * 4});
}

// The optimizer step: the wrapper's checks, the fp32 gradients, the optimizer (FP16_Optimizer
// unscales and clips inside its step; fp32 on one rank clips in _take_model_step before it),
// the 16-bit parameters copied back, the gradients freed (the engine's zero_grad). DeepSpeed
// wraps only FusedAdam in FP16_Optimizer; torch's Adam gets FP16_UnfusedOptimizer, which keeps
// the 16-bit gradients through the step (the oracle's stage-0 bf16 run with torch AdamW has 20Ψ
// at the inner step).
void optimizer_step(PlanBuilder& b, const std::vector<int>& grads) {
  const Layout& l = b.layout();
  const bool mixed = l.precision != configs::Precision::kFp32;
  const bool fused = l.fused_adam;
  const std::int64_t psi = l.psi;
  const int compute = b.compute_stream();
  b.begin_segment("step", 1);
  b.host_calls_before_next(HostTask::kEngineStep, 1);
  step_host_calls(b, mixed, fused);
  if (mixed) overflow_and_norm(b);
  const int first_skipped = static_cast<int>(b.plan().ops.size());
  const int fp32_grads = mixed ? cast_grads(b, fused, grads) : -1;
  const int clip = !mixed && l.clip_gradients && l.world > 1 ? clip_fp32(b) : -1;
  const int step =
      b.op({"step.optimizer"}, compute, Phase::kStep, OptimizerWork{false, psi, psi * 28});
  b.at(clip >= 0 ? clip : step).step_role = StepRole::kUnscaleClip;
  if (fp32_grads >= 0) b.free(step, fp32_grads);
  if (mixed) {
    const int copy =
        b.op({"step.copy_params"}, compute, Phase::kStep, MemoryWork{psi * 4, psi * l.param_bytes});
    if (!fused) {
      for (int g : grads) b.free(copy, g);
    }
  } else {
    for (int g : grads) b.free(step, g);
  }
  if (l.precision == configs::Precision::kFp16) mark_skipped_on_overflow(b, first_skipped);
  end_of_step_sync(b);
  b.end_segment();
}

}  // namespace

void schedule_stage0(PlanBuilder& b) {
  declare_states(b);
  std::vector<int> grads;  // per-block gradient buffers, from micro-step 0 to the step
  for (const MicroStepRun& run : micro_step_runs(b.layout(), false)) micro_steps(b, run, &grads);
  optimizer_step(b, grads);
}

}  // namespace zs::plan
