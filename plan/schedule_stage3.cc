// ZeRO stage 3 (zero/stage3.py, parameter_offload.py, partitioned_param_coordinator.py,
// partition_parameters.py at DeepSpeed 0.19.6), in steady state: from the second forward of a
// run, when the coordinator has recorded its trace and prefetches.
//
// - Persistent: every parameter's ceil(n/N) partition in one 16-bit flat buffer; full copies of
//   the persistent parameters (numel <= stage3_param_persistence_threshold); the fp32 master
//   and optimizer states per sub-group; the gradient partition buffer (grad_accum dtype, 2Ψ/N
//   at init: model states are 20Ψ/N at the inner step, not the estimator's 18Ψ/N); with
//   contiguous_gradients one IPG buffer of reduce_bucket_size elements in the communication
//   dtype.
// - Parameters are gathered as DeepSpeed's coordinator gathers them (class Coordinator,
// plan/param_coordinator.h):
//   per HF submodule fetch (plan/module_order.h), a coalesced all-gather of what the module
//   needs and is not there, then a prefetch of the queue's next parameters, released after the
//   module unless reused within stage3_max_reuse_distance or fetched for a later step.
// - Gradients are copied into the IPG buffer on the reduce stream as they complete; a full
//   bucket is reduce-scattered (a coalesced copy interleaved per rank) and this rank's shard is
//   copied (micro-step 0) or added into the gradient partition; at most 2 reductions stay in
//   flight before the host waits.
// - Step, per sub-group: the shard is flattened and cast to fp32, the optimizer runs, the 16-bit
//   partition is updated in place. Persistent parameters are gathered again after the step, one
//   all_gather per parameter.
// - ZeRO++ hpZ (zero_hpz_partition_size k > 1): a parameter released after use keeps a
//   secondary partition over its group of k ranks until the step (partition_parameters.py
//   _partition_param_sec, stage3.py invalidate_secondary_tensor), and later gathers of it run
//   within that group: a coalesced fetch splits into the parameters with a secondary partition
//   (gathered over k) and those without (over the whole group).
// Simpler than the code: a coalesced gather's flat buffer is charged to its parameters (its
// copy at wait time is working memory of the module).
#include <algorithm>
#include <span>

#include "plan/grad_bucket.h"
#include "plan/param_coordinator.h"
#include "plan/schedules.h"

namespace zs::plan {
namespace {

// The IPG bucket and its reduce-scatters for one backward.
class Scatterer {
 public:
  Scatterer(PlanBuilder& b, const std::string& label, int index, bool boundary)
      : b_(b),
        l_(b.layout()),
        label_(label),
        index_(index),
        boundary_(boundary),
        bucket_(b, label, true) {}

  // Adds p's completed gradient from op `producer` (created by op `created` when earlier).
  void add(int p, int producer, int created = -1) {
    if (bucket_.would_overflow(p)) flush(producer);
    bucket_.add(p, producer, created);
  }

  // The bucket allocates p's gradient itself (GradBucket::owns_grad).
  bool owns_grad(int p) const { return bucket_.owns_grad(p); }

  void flush(int producer) {
    // With more than max_param_reduce_events (2) reductions pending the host synchronizes the
    // oldest before issuing the next (stage3.py __reduce_and_partition_ipg_grads); as for
    // fetches, the plan cannot know which have finished, so it waits for the third back.
    const std::size_t k = flushes_.size();
    if (k >= 3) b_.host_wait_before_next(flushes_[k - 3]);
    b_.host_calls_before_next(HostTask::kStage3BucketFlush, 1);
    if (l_.offload_optimizer && boundary_) {
      b_.host_calls_before_next(HostTask::kStage3OffloadGrad,
                                static_cast<int>(bucket_.params().size()));
    }
    std::int64_t padded = 0, shard = 0;
    for (int p : bucket_.params()) {
      padded += l_.world * l_.partition_elems[p];
      shard += l_.partition_elems[p];
    }
    const auto& params = bucket_.params();
    const bool single = params.size() == 1 && l_.params()[params[0]].numel % l_.world == 0;
    // reduce_scatter_coalesced: per-rank pieces of each gradient, divided by N first.
    CollectiveWork w{.kind = CollectiveKind::kReduceScatter,
                     .dtype = l_.comm_dtype,
                     .role = CollectiveRole::kGradients,
                     .average = Average::kDivideBefore,
                     .layout = SliceLayout::kRankPieces,
                     .bytes = padded * l_.comm_bytes,
                     .group_size = l_.world};
    w.slices = b_.whole_params(params);  // each rank keeps its partition of each
    const int op = b_.op(b_.name(label_, ".reduce_scatter.", flushes_.size()), b_.reduce_stream(),
                         Phase::kReduce, w, {producer});
    // reduce_scatter_coalesced interleaves the bucket per rank into a new tensor.
    b_.at(op).transient_bytes = single ? 0 : padded * l_.comm_bytes;
    if (l_.offload_optimizer) {
      // partition_grads with a host buffer: the shard goes down (and, after micro-step 0, comes
      // up to be added first).
      const Bytes bytes = shard * l_.accum_bytes;
      std::vector<int> deps{op};
      if (index_ > 0) {
        CopyWork up{bytes, true, true, CopyRole::kGradients};
        up.slices = w.slices;
        deps = {b_.op({label_, ".grads_from_host.", flushes_.size()}, b_.h2d_stream(),
                      Phase::kReduce, up, {op})};
      }
      CopyWork down{bytes, false, true, CopyRole::kGradients};
      down.slices = w.slices;
      b_.op({label_, ".grads_to_host.", flushes_.size()}, b_.d2h_stream(), Phase::kReduce, down,
            deps);
    }
    bucket_.reduced(op);
    flushes_.push_back(op);
  }

  int finish(int last_op) {
    if (!bucket_.empty()) flush(last_op);
    // independent_gradient_partition_epilogue: reduce_and_partition_stream.synchronize().
    return b_.host_sync({label_, ".epilogue"}, Phase::kReduce,
                        {flushes_.empty() ? last_op : flushes_.back()});
  }

 private:
  PlanBuilder& b_;
  const Layout& l_;
  std::string label_;
  int index_;
  bool boundary_;
  GradBucket bucket_;
  std::vector<int> flushes_;
};

// What the optimizer step needs of the model states (declare_states).
struct Stage3States {
  int persistent_params = -1;        // the persistent parameters' full copies, or -1: none
  std::int64_t persistent_full = 0;  // their elements
  int groups = 0;                    // optimizer sub-groups
  int on_gpu = 0;                    // how many, the first ones, step on the GPU
  Bytes state = 0;                   // optimizer state bytes per element
};

// The 16-bit parameter partitions (partition_parameters.py): on the GPU, or with offload_param
// in pinned host memory (its flat is always pinned), past max_in_cpu on NVMe with its swap
// buffers.
void declare_param_partitions(PlanBuilder& b) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  const Device pinned = Device::kHostPinned;
  if (!l.offload_param) {
    b.persistent({"params.partitions"}, l.psi3 * e, Device::kGpu, Category::kParams, true);
    return;
  }
  if (!l.param_on_nvme) {
    b.persistent({"params.partitions.cpu"}, l.psi3 * e, pinned, Category::kParams, true);
    return;
  }
  const std::int64_t in_cpu = std::min(l.psi3, l.param_max_in_cpu);
  b.persistent({"params.partitions.cpu"}, in_cpu * e, pinned, Category::kParams, true);
  b.persistent({"params.partitions.nvme"}, (l.psi3 - in_cpu) * e, Device::kNvme, Category::kParams,
               true);
  b.persistent({"params.swap_buffers"}, l.param_swap_buffers * l.param_swap_buffer_elems * e,
               pinned, Category::kBuffers);
}

// The fp32 master parameters and optimizer states of the sub-groups that step on the GPU and
// of those offloaded (stage3.py: below the partial-offload threshold they stay), the host's
// fp32 gradients or NVMe staging, the gradient partitions and the IPG bucket.
void declare_optimizer_states(PlanBuilder& b, const Stage3States& s) {
  const Layout& l = b.layout();
  const Device pinned = Device::kHostPinned;
  std::int64_t gpu_elems = 0, host_elems = 0, largest_group = 0;
  for (int j = 0; j < s.groups; ++j) {
    (j < s.on_gpu ? gpu_elems : host_elems) += l.sub_groups[j];
    largest_group = std::max(largest_group, l.sub_groups[j]);
  }
  if (gpu_elems > 0) {
    b.persistent({"master_params.fp32"}, gpu_elems * 4, Device::kGpu, Category::kOptimizerStates,
                 true);
    b.persistent({"optimizer_states"}, gpu_elems * s.state, Device::kGpu,
                 Category::kOptimizerStates, true);
  }
  if (host_elems > 0) {
    const Device where = l.optimizer_on_nvme ? Device::kNvme : Device::kHostPageable;
    b.persistent({"master_params.fp32.offload"}, host_elems * 4, where, Category::kOptimizerStates);
    b.persistent({"optimizer_states.offload"}, host_elems * s.state, where,
                 Category::kOptimizerStates);
    if (l.optimizer_on_nvme) {
      b.persistent({"optimizer.swap_buffers"}, l.optimizer_swap_buffers * largest_group * 4, pinned,
                   Category::kBuffers);
      b.persistent({"grads.fp32.staging"}, largest_group * 4, Device::kHostPageable,
                   Category::kBuffers);
    } else {
      b.persistent({"grads.fp32.cpu"}, host_elems * 4,
                   l.pin_optimizer ? pinned : Device::kHostPageable, Category::kGrads);
    }
  }
  b.persistent(
      {"grads.partitions"}, l.psi3 * l.accum_bytes,
      l.offload_optimizer ? (l.pin_optimizer ? pinned : Device::kHostPageable) : Device::kGpu,
      Category::kGrads, true);
  // The IPG bucket exists only with contiguous_gradients (stage3.py __init__; the oracle's
  // contiguous_gradients=false run has none).
  if (l.contiguous_gradients) {
    b.persistent({"ipg_bucket"}, l.bucket_elems * l.comm_bytes, Device::kGpu, Category::kBuffers);
  }
}

// Every model state, in DeepSpeed's order of allocation.
Stage3States declare_states(PlanBuilder& b) {
  const Layout& l = b.layout();
  declare_param_partitions(b);
  Stage3States s;
  for (int p : l.real_params()) {
    if (l.persistent[p]) s.persistent_full += l.world * l.partition_elems[p];
  }
  if (s.persistent_full > 0) {
    s.persistent_params = b.persistent({"params.persistent"}, s.persistent_full * l.param_bytes,
                                       Device::kGpu, Category::kParams);
  }
  s.state = l.optimizer_state_bytes;
  s.groups = static_cast<int>(l.sub_groups.size());
  s.on_gpu = l.offload_optimizer ? static_cast<int>((1.0 - l.offload_ratio) * s.groups) : s.groups;
  declare_optimizer_states(b, s);
  return s;
}

// ZeRO++ hpZ's secondary partitions: their group (1: off) and the bytes they take.
HpzState make_hpz(const Layout& l) {
  HpzState hpz;
  hpz.group = l.hpz_group;
  if (hpz.group <= 1) return hpz;
  hpz.secondary.assign(l.params().size(), false);
  for (int p : l.real_params()) {
    if (!l.persistent[p]) hpz.bytes += l.world * l.partition_elems[p] / hpz.group * l.param_bytes;
  }
  return hpz;
}

// A leaf module's gradients live from the op that creates them to its backward's end, where
// they reach the bucket: held_[p] is the op that created p's, and a buffer stands for a
// gradient the bucket does not own meanwhile (held_buf_[p]).
class LeafGrads {
 public:
  LeafGrads(PlanBuilder& b, const std::string& label, Scatterer& scatterer)
      : b_(b),
        l_(b.layout()),
        label_(label),
        scatterer_(scatterer),
        any_(!l_.graph->modules.leaves.empty()),
        held_(any_ ? l_.params().size() : 0, -1),
        held_buf_(held_) {}

  // Op `op`, backward of block `block`, created the gradients of its leaf modules that
  // complete later.
  void created(int block, int op) {
    if (!any_) return;
    for (int p : l_.stage3_flow().created[block]) {
      if (!l_.leaf_param(p) || l_.completes_with(p, block)) continue;
      held_[p] = op;
      if (scatterer_.owns_grad(p)) continue;
      held_buf_[p] =
          b_.buffer(b_.name(label_, ".grad.held.", l_.params()[p].name),
                    l_.params()[p].numel * l_.param_bytes, Device::kGpu, Category::kGrads);
      b_.alloc(op, held_buf_[p]);
    }
  }

  // p's gradient, complete at op `op`, goes to the bucket.
  void complete(int p, int op) {
    if (!any_) return scatterer_.add(p, op);
    scatterer_.add(p, op, held_[p]);
    if (held_buf_[p] >= 0) b_.free(op, held_buf_[p]);
    held_[p] = held_buf_[p] = -1;
  }

 private:
  PlanBuilder& b_;
  const Layout& l_;
  const std::string& label_;
  Scatterer& scatterer_;
  bool any_;
  std::vector<int> held_, held_buf_;
};

// Backward op `op` of trace entry `t` (at position `pos`): each gradient until copied to the
// IPG bucket; the gradients of the modules fetched so far first, then (GPT-2's embedding) the
// block's later modules are fetched and theirs added.
void reduce_backward(PlanBuilder& b, const TraceEntry& t, int op, int pos, Coordinator& coordinator,
                     LeafGrads& grads) {
  const Layout& l = b.layout();
  const GradFlow& flow = l.stage3_flow();
  b.at(op).transient_bytes += flow.largest[t.block] * l.param_bytes;
  grads.created(t.block, op);
  b.host_calls_before_next(HostTask::kStage3GradHook,
                           static_cast<int>(flow.completed[t.block].size()));
  const std::vector<int>& fetched = coordinator.fetched_here();
  std::vector<int> later;
  for (int p : flow.completed[t.block]) {
    if (std::find(fetched.begin(), fetched.end(), p) != fetched.end()) {
      grads.complete(p, op);
    } else {
      later.push_back(p);
    }
  }
  coordinator.resume(pos);
  for (int p : later) grads.complete(p, op);
}

// The micro-steps of run `run`: the model's ops in trace order, each after the coordinator's
// fetches, backward's gradients to the bucket, the epilogue, the release of what remains.
void micro_steps(PlanBuilder& b, const MicroStepRun& run, HpzState* hpz, bool uniform) {
  begin_micro_steps(b, run);
  Coordinator coordinator(b, run.label, hpz);
  Scatterer scatterer(b, run.label, run.first, run.boundary);
  LeafGrads grads(b, run.label, scatterer);
  MicroStepCompute model(b, run.label);
  std::vector<int> deps;
  while (!model.done()) {
    const TraceEntry t = model.next();
    const int pos = model.position();
    deps.clear();
    Bytes coalesced = 0;
    coordinator.before(pos, &deps, &coalesced);
    const int op = model.run(deps);
    b.at(op).transient_bytes += coalesced;
    if (t.pass == Pass::kBackward) reduce_backward(b, t, op, pos, coordinator, grads);
    coordinator.after();
  }
  const int epilogue = scatterer.finish(model.finish());
  coordinator.release_all(epilogue);
  end_micro_steps(b, run, uniform);
}

// A sub-group stepped on the GPU: _prepare_fp32_grad_for_sub_group (a flattened copy, then its
// fp32 cast), the optimizer, the 16-bit partition updated in place.
void step_on_gpu(PlanBuilder& b, const std::string& name, int j, std::int64_t s,
                 std::int64_t first_elem) {
  const Layout& l = b.layout();
  const int compute = b.compute_stream();
  const int grads32 = b.buffer({name, ".grads.fp32"}, s * 4, Device::kGpu, Category::kGrads);
  const int cast = b.op({name, ".cast_grads"}, compute, Phase::kStep,
                        MemoryWork{s * l.accum_bytes, s * (l.accum_bytes + 4)});
  b.alloc(cast, grads32);
  b.at(cast).transient_bytes = s * l.accum_bytes;
  const int adam = b.op({name, ".optimizer"}, compute, Phase::kStep,
                        OptimizerWork{false, s, s * 28, first_elem});
  // stage3.py step: unscale_and_clip_grads per sub-group before its optimizer step; the divisor
  // is the same for all, so the Plan names the first.
  if (j == 0) b.at(adam).step_role = StepRole::kUnscaleClip;
  b.free(adam, grads32);
  b.op({name, ".copy_params"}, compute, Phase::kStep, MemoryWork{s * 4, s * l.param_bytes});
}

// A sub-group stepped on the host thread, after op `last`, one after the other (stage3.py
// step): NVMe swap in, the unscale pass over the fp32 gradients (unscale_and_clip_grads, run
// whatever the scale: 8 bytes per element), CPU Adam (28), the fp32 partition cast to 16 bits
// on the CPU for the copy up (4 + e bytes per element more), swap out. Returns its last op.
int step_on_host(PlanBuilder& b, const std::string& name, int j, std::int64_t s,
                 std::int64_t first_elem, Bytes state, int last) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  int ready = last;
  if (l.optimizer_on_nvme) {
    ready = b.op({name, ".swap_in"}, b.nvme_stream(), Phase::kStep, NvmeWork{s * (4 + state), true},
                 {ready});
    b.at(ready).host_waits = true;
  }
  const Bytes cast_bytes = l.offload_param ? 0 : s * (4 + e);
  last = b.host_op({name, ".optimizer.cpu"}, Phase::kStep,
                   OptimizerWork{true, s, s * (8 + 28) + cast_bytes, first_elem}, {ready});
  const int adam = last;
  if (j == 0) b.at(adam).step_role = StepRole::kUnscaleClip;
  if (l.optimizer_on_nvme) {
    last = b.op({name, ".swap_out"}, b.nvme_stream(), Phase::kStep,
                NvmeWork{s * (4 + state), false}, {last});
  }
  if (!l.offload_param) {
    // _reassign_or_swap_out_partitioned_parameters: fp16_partitioned_groups_flat.copy_(fp32
    // flat) with non_blocking=False from unpinned memory: the host waits.
    last = b.op({name, ".params_to_gpu"}, b.h2d_stream(), Phase::kStep,
                CopyWork{s * e, true, false, CopyRole::kParams, adam}, {last});
    b.at(last).host_waits = true;
  }
  return last;
}

// _post_step: every persistent parameter is gathered again, one all_gather_into_tensor per
// parameter in ds_id order, issued back to back, then torch.cuda.synchronize()
// (partition_parameters.py; the oracle records one call per persistent parameter). Their full
// copies were freed when the step began, at op `step_begin`.
void gather_persistent(PlanBuilder& b, const Stage3States& s, int step_begin) {
  const Layout& l = b.layout();
  int after = b.last_op();
  const int first_gather = after + 1;
  for (int p : l.real_params()) {
    if (!l.persistent[p]) continue;
    after = b.op(b.name("step.allgather_persistent.", l.params()[p].name), b.compute_stream(),
                 Phase::kPostStep, gather_params(b, std::span<const int>(&p, 1), l.world), {after});
  }
  b.persistent_gap(s.persistent_params, step_begin, first_gather);
  b.device_sync({"step.post_step_sync"}, Phase::kPostStep);
}

// The optimizer step: fp16's overflow check (stage3.py _overflow_check_and_loss_scale_update;
// an overflow skips everything after it, _post_step included), the norm, each sub-group's
// step, the persistent parameters gathered again, hpZ's secondary partitions invalidated.
void optimizer_step(PlanBuilder& b, const Stage3States& s, const HpzState& hpz) {
  const Layout& l = b.layout();
  b.begin_segment("step", 1);
  b.host_calls_before_next(HostTask::kEngineStep, 1);
  const int params = static_cast<int>(l.real_params().size());
  b.host_calls_before_next(
      l.offload_optimizer ? HostTask::kStage3OffloadStepParam : HostTask::kStage3StepParam, params);
  b.host_calls_before_next(
      l.offload_optimizer ? HostTask::kStage3OffloadStepBody : HostTask::kStage3StepBody, 1);
  // step() begins with _partition_all_parameters: the persistent parameters' full copies are
  // freed (stage3.py step), so the inner optimizer runs without them (the oracle's snapshots).
  const int step_begin = static_cast<int>(b.plan().ops.size());
  const bool fp16 = l.precision == configs::Precision::kFp16;
  int last = b.last_op();
  if (fp16) last = overflow_check(b, last);
  const int first_skipped = static_cast<int>(b.plan().ops.size());
  // _get_norm_groups: a norm per sub-group, each ending in a device scalar built on the host
  // (torch.tensor(-1.0, device=...)), about 4 host round trips per sub-group with offload. The
  // partial norms are summed in fp64 on the device, in fp32 on the host with offload
  // (stage3.py get_grad_norm_direct, complete_grad_norm_calculation_for_cpu_offload; the
  // oracle's all_reduce dtypes).
  last = grad_norm(b, l.offload_optimizer ? 0 : l.psi3 * l.accum_bytes,
                   l.offload_optimizer ? Dtype::kFp32 : Dtype::kFp64, last,
                   (l.offload_optimizer ? 4 : 1) * std::max(s.groups, 1));
  std::int64_t group_begin = 0;  // the sub-group's first element in the rank's partition
  for (int j = 0; j < s.groups; ++j) {
    const std::int64_t size = l.sub_groups[j];
    const std::string name = "step.sub_group." + std::to_string(j);
    if (j < s.on_gpu) {
      step_on_gpu(b, name, j, size, group_begin);
    } else {
      last = step_on_host(b, name, j, size, group_begin, s.state, last);
    }
    group_begin += size;
  }
  if (s.persistent_full > 0) gather_persistent(b, s, step_begin);
  if (fp16) mark_skipped_on_overflow(b, first_skipped);
  end_of_step_sync(b);
  // _post_step: invalidate_secondary_tensor.
  if (hpz.buffer >= 0) b.free(b.last_op(), hpz.buffer);
  b.end_segment();
}

}  // namespace

void schedule_stage3(PlanBuilder& b) {
  const Layout& l = b.layout();
  const Stage3States states = declare_states(b);
  HpzState hpz = make_hpz(l);
  // Without optimizer offload every micro-step does the same work, unless hpZ's first one
  // gathers over the whole group what later ones gather within theirs.
  const bool uniform = !l.offload_optimizer && hpz.group <= 1;
  for (const MicroStepRun& run : micro_step_runs(l, uniform)) {
    micro_steps(b, run, &hpz, uniform);
  }
  optimizer_step(b, states, hpz);
}

}  // namespace zs::plan
