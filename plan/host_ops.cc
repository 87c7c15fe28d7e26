#include "plan/host_ops.h"

#include <variant>

#include "common/check.h"
#include "models/eager_dispatch.h"

namespace zs::plan {

// DeepSpeed 0.19.6's ATen calls per call of each task: what scripts/record_host_ops.py saw the
// functions behind it dispatch (the recordings' op_sites), divided by their calls (named_calls),
// in the GPT-2 recordings at GA 1 (tests/plan/oracle/host_ops/gpt2_*_ga1.json; rank 0, 28
// parameter tensors, reduce_bucket_size 5e4, its partition 11 of them), GA 3 for the tasks only
// GA > 1 has (kOffloadAccumulate); ZeRO-1/2's bucket reduction and ZeRO-3's one-parameter gather
// in every recording (the GPT-2 runs alone do not tell a per-bucket from a per-slice call).
// The other recordings (Llama, Qwen2, BLOOM, Falcon, DeepSeek, GA 3, 4 layers, rank 1's partition)
// are what host_ops_test holds them to. Collectives are not counted here (CollectiveWork ops), nor
// device syncs (the Plan's sync ops).
namespace {

struct TaskRow {
  HostTask task;
  TaskDispatch calls;
};

// clang-format off
constexpr TaskRow kTaskDispatch[] = {
    {HostTask::kEngineForward, {0, 0}},
    // engine.backward's two kernels and the loss scaler's (scale_loss)
    {HostTask::kEngineBackward, {3, 0}},
    {HostTask::kEngineStep, {0, 0}},
    // AccumulateGrad's add_ in place of the detach with which it keeps a first gradient (the
    // model's counts, measured from a first backward, hold the detach).
    {HostTask::kAccumulateGrad, {1, -1}},
    // _get_gradients_for_reduction, allreduce_bucket and allreduce_and_copy: 4 views and the
    // copy back of the reduced gradient, per parameter.
    {HostTask::kStage0ReduceParam, {1, 4}},
    // flatten, the post-scale mul_, split_half_float_double_sparse
    {HostTask::kStage0ReduceBucket, {3, 0}},
    // FP16_UnfusedOptimizer.step per parameter: has_inf_or_nan (12 kernels) and its .item(),
    // get_weight_norm's cast and norm (3 kernels, a copy, a view), the fp32 gradient (a copy),
    // unscale_and_clip's mul_, the copy back to 16 bits, and torch AdamW's two _get_value
    // reads of the parameter's step count (a host tensor: no sync).
    {HostTask::kStage0StepParam, {19, 8}},
    // torch AdamW's foreach kernels (8), its profiler wrapper, the norm's and overflow
    // flag's reads, the tensors made from Python floats.
    {HostTask::kStage0StepBody, {8, 10}},
    {HostTask::kGradHook, {0, 1}},  // count_used_parameters_in_backward's view, per parameter
    {HostTask::kGradReduce, {1, 4}},  // the copy into the IPG bucket and 4 views
    // not copied into the bucket: reduce_ipg_grads reduces its gradient in place (its view(-1)
    // and view_as)
    {HostTask::kGradReduceLarge, {0, 2}},
    // A bucket's reduction (stage_1_and_2.py reduce_ipg_grads, average_tensor,
    // allreduce_and_scatter, allreduce_and_copy_with_multiple_ranks, allreduce_bucket), read off
    // the op_sites of every ZeRO-1/2 recording's rank 0 (gpt2, llama, qwen2, bloom, falcon; e.g.
    // falcon_s2_b5e4_ga1: 8 buckets, 5 of them one large parameter each, 10 slices, 2 all_reduces
    // of two slices, 4 slices owned: 16 + 10 + 40 + 2 + 4 = 72 calls, as recorded).
    // average_tensor's div_, reduce_ipg_grads' narrow of the bucket
    {HostTask::kBucketFlush, {1, 1}},
    // average_tensor's div_, reduce_ipg_grads' narrow of the bucket
    {HostTask::kBucketFlushOverlap, {1, 1}},
    // average_tensor's narrow, _flatten_dense_tensors' view, _unflatten_dense_tensors' narrow
    // and view_as
    {HostTask::kFlushSlice, {0, 4}},
    // an owned slice's copy back into the bucket, or _flatten_dense_tensors' cat of several
    // (one slice is only viewed)
    {HostTask::kFlushKernel, {1, 0}},
    // record_stream on the reduced tensor, per all_reduce, and on each slice copied back
    // (gpt2_s2_b5e4_ovl_ga1: 14 + 5 more calls than gpt2_s2_b5e4_ga1)
    {HostTask::kFlushStreamRecord, {0, 1}},
    {HostTask::kIpgBuffer, {0, 1}},  // setup_buckets' empty
    // copy_grads_in_partition's empty, get_flat_partition's two views
    {HostTask::kPartitionBuffer, {0, 3}},
    {HostTask::kPartitionCopy, {1, 5}},  // copy_grads_in_partition
    {HostTask::kPartitionAccumulate, {1, 0}},  // independent_gradient_partition_epilogue's add_
    // has_inf_or_nan (12 kernels) and the .item() of its result, the fp64 norm on the GPU, the
    // fp32 cast and the copy to the host (async_inplace_copy_grad_to_fp32_buffer_from_gpu).
    {HostTask::kOffloadGrad, {16, 9}},
    // complete_grad_norm_calculation_for_cpu_offload's .item()
    {HostTask::kOffloadStepParam, {0, 1}},
    // the copy up, the add_ and the copy down, and 8 views (gpt2_s2_b5e4_offopt_ga3: 11 calls
    // per parameter of the partition more than kPartitionCopy's in micro-steps 1 and 2)
    {HostTask::kOffloadAccumulate, {3, 8}},
    {HostTask::kZeroStepParam, {0, 4}},  // _update_model_bit16_weights
    // has_inf_or_nan (12 kernels) and has_overflow_partitioned_grads_serial's accumulation;
    // get_grad_norm_direct's cast, norm and views (rank 0's 11 gradients: 16 + 2)
    {HostTask::kZeroStepGrad, {16, 2}},
    {HostTask::kZeroStepBody, {23, 22}},
    {HostTask::kOffloadStepBody, {13, 15}},
    // Per parameter: its IPG bucket copy (those that fit), partition_grads' copy, free_param,
    // reduce_scatter_coalesced's per-parameter views, count_used_parameters_in_backward.
    {HostTask::kStage3GradHook, {2, 11}},
    // reduce_scatter_coalesced's pads and copies, reduce_scatter_tensor's
    {HostTask::kStage3BucketFlush, {3, 6}},
    // the views of PreBackwardFunctionForModule / PostBackwardFunctionModule
    {HostTask::kModuleVisit, {0, 2}},
    {HostTask::kModuleVisitBackward, {0, 0}},
    {HostTask::kGather, {1, 3}},  // _all_gather_dtype's flat buffer and copy
    // AllGatherCoalescedHandle.wait's per-parameter narrow, copy and views
    {HostTask::kGatherParam, {1, 5}},
    // partition_parameters.py all_gather_coalesced takes _all_gather_sequential for one
    // parameter: its buffer and two views (falcon_s3_base_ga1: 3 such gathers, 9 calls), and
    // AllGatherHandle.wait none
    {HostTask::kGatherSingle, {0, 3}},
    // _unflatten_partitioned_parameters (3 views), get_grad_norm_direct's cast and norm,
    // _prepare_fp32_grad_for_sub_group's per-parameter view
    {HostTask::kStage3StepParam, {2, 5}},
    {HostTask::kStage3StepBody, {30, 8}},
    // _constant_buffered_norm2 (the fp64 cast, norm, square), _offload_grad_partition_at_
    // boundary (the fp32 cast and the copy down)
    {HostTask::kStage3OffloadGrad, {6, 4}},
    // _unflatten_partitioned_parameters, the norm's accumulation
    {HostTask::kStage3OffloadStepParam, {2, 3}},
    {HostTask::kStage3OffloadStepBody, {17, 10}},
};
// clang-format on

static_assert(lists_every_host_task(kTaskDispatch),
              "kTaskDispatch lists every HostTask in its order");

}  // namespace

TaskDispatch task_dispatch(HostTask task) {
  const auto i = static_cast<std::size_t>(task);
  ZS_CHECK_MSG(i < std::size(kTaskDispatch), "no such host task");
  return kTaskDispatch[i].calls;
}

HostOps& HostOps::operator+=(const HostOps& o) {
  kernels += o.kernels;
  other += o.other;
  modules += o.modules;
  syncs += o.syncs;
  waits += o.waits;
  collectives += o.collectives;
  for (int k = 0; k < kHostTaskCount; ++k) tasks[k] += o.tasks[k];
  return *this;
}

HostPhase host_phase(Phase p) {
  switch (p) {
    case Phase::kForward:
      return HostPhase::kForward;
    case Phase::kBackward:
    case Phase::kReduce:
      return HostPhase::kBackward;
    case Phase::kStep:
    case Phase::kPostStep:
      return HostPhase::kStep;
  }
  return HostPhase::kStep;
}

HostOps op_host_ops(const Plan& plan, int id, const ModelGraph& graph) {
  const Op& op = plan.ops[id];
  HostOps h;
  if (const auto* w = std::get_if<ComputeWork>(&op.work)) {
    for (int m = w->first_model_op; m <= w->last_model_op; ++m) {
      const models::EagerDispatch d =
          models::eager_dispatch(graph.ops[m], graph.spec, graph.workload);
      const models::HostDispatch& pass = w->pass == Pass::kBackward ? d.bwd : d.fwd;
      h.kernels += pass.kernels;
      h.other += pass.other;
      h.modules += pass.modules;
      h.syncs += pass.syncs;
    }
  } else if (std::holds_alternative<CollectiveWork>(op.work)) {
    h.collectives = 1;
  } else if (const auto* s = std::get_if<SyncWork>(&op.work)) {
    h.syncs = s->rounds;
  }
  if (op.host_wait_for >= 0) ++h.waits;
  for (const HostCall& c : op.host_calls.calls()) {
    const TaskDispatch d = task_dispatch(c.task);
    h.kernels += static_cast<std::int64_t>(c.count) * d.kernels;
    h.other += static_cast<std::int64_t>(c.count) * d.other;
    h.tasks[static_cast<int>(c.task)] += c.count;
  }
  return h;
}

std::array<HostOps, kHostPhaseCount> host_ops_by_phase(const Plan& plan, const ModelGraph& graph) {
  std::array<HostOps, kHostPhaseCount> out{};
  for (const Segment& seg : plan.segments) {
    for (int i = seg.first_op; i < seg.end_op; ++i) {
      const HostOps h = op_host_ops(plan, i, graph);
      HostOps& into = out[static_cast<int>(host_phase(plan.ops[i].phase))];
      for (int r = 0; r < seg.repeat; ++r) into += h;
    }
  }
  return out;
}

}  // namespace zs::plan
