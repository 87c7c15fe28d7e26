// ZeRO stage 3 (zero/stage3.py, parameter_offload.py, partitioned_param_coordinator.py,
// partition_parameters.py at DeepSpeed 0.19.6), in steady state: from the second forward of a
// run, when the coordinator has recorded its trace and prefetches.
//
// - Persistent: every parameter's ceil(n/N) partition in one 16-bit flat buffer; full copies of
//   the persistent parameters (numel <= stage3_param_persistence_threshold); the fp32 master
//   and optimizer states per sub-group; the gradient partition buffer (grad_accum dtype); one IPG
//   buffer of reduce_bucket_size elements in the communication dtype.
// - Each module's non-persistent parameters are all-gathered before it runs (N·ceil(n/N)
//   elements each), together with a prefetch of the next parameters in trace order up to
//   min(stage3_max_live_parameters - available, stage3_prefetch_bucket_size) elements (it may
//   overshoot by one parameter: ppc fetch_sub_module). After the module they are released unless
//   used again within stage3_max_reuse_distance elements of the trace. Backward fetches again.
// - Gradients are copied into the IPG buffer on the reduce stream as they complete; a full
//   bucket is reduce-scattered (a coalesced copy interleaved per rank) and this rank's shard is
//   copied (micro-step 0) or added into the gradient partition; at most 2 reductions stay in
//   flight before the host waits.
// - Step, per sub-group: the shard is flattened and cast to fp32, the optimizer runs, the 16-bit
//   partition is updated in place. Persistent parameters are gathered again after the step.
// Simpler than the code: a coalesced gather's flat buffer is charged to its parameters (its
// copy at wait time is working memory of the module); persistent parameters are kept across the
// step instead of being released and gathered again.
#include <algorithm>
#include <map>

#include "plan/grad_bucket.h"
#include "plan/schedules.h"

namespace zs::plan {
namespace {

// The coordinator's view of gathered parameters during one micro-step.
class Fetcher {
 public:
  Fetcher(PlanBuilder& b, const configs::DsConfig& c, const std::string& label)
      : b_(b), l_(b.layout()), label_(label), max_live_(c.zero.max_live_parameters.value),
        prefetch_(c.zero.prefetch_bucket_size.value), reuse_(c.zero.max_reuse_distance.value),
        buffer_(l_.params().size(), -1), fetched_by_(l_.params().size(), -1),
        coalesced_(l_.params().size(), false), chosen_at_(l_.params().size(), -1) {
    index_reuse();
  }

  // Fetches the parameters of the block at trace position `t` and prefetches ahead. Appends to
  // *deps the ops its compute waits for; *coalesced_bytes gets the working memory of coalesced
  // gathers.
  void fetch(int t, std::vector<int>* deps, Bytes* coalesced_bytes) {
    scratch_.clear();
    for (int p : params_of(t)) {
      if (buffer_[p] < 0) scratch_.push_back(p);
    }
    if (!scratch_.empty()) gather(scratch_, "fetch");
    scratch_.clear();
    const std::int64_t budget = std::min(max_live_ - available_, prefetch_);
    std::int64_t chosen = 0;
    const int n = static_cast<int>(l_.trace.size());
    // Positions before frontier_ hold only gathered parameters, which the scan would skip.
    int u = std::max(t + 1, frontier_);
    for (; u < n && chosen < budget; ++u) {
      for (int p : params_of(u)) {
        if (chosen >= budget) break;
        if (buffer_[p] >= 0 || chosen_at_[p] == t) continue;
        chosen_at_[p] = t;
        scratch_.push_back(p);
        chosen += l_.params()[p].numel;
      }
    }
    // Every position the scan finished is gathered now; the last one it looked at may not be.
    frontier_ = u < n ? std::max(t + 1, u - 1) : n;
    if (!scratch_.empty()) gather(scratch_, "prefetch");
    const std::size_t first = deps->size();
    *coalesced_bytes = 0;
    int newest = -1;
    for (int p : params_of(t)) {
      if (std::find(deps->begin() + first, deps->end(), fetched_by_[p]) == deps->end()) {
        deps->push_back(fetched_by_[p]);
      }
      newest = std::max(newest, fetched_by_[p]);
      if (coalesced_[p]) *coalesced_bytes += l_.params()[p].numel * l_.param_bytes;
    }
    if (newest < 0) return;
    // fetch_sub_module records an event on the all-gather stream after each wait and, with
    // more than __max_ongoing_fetch_events (2) of them pending, synchronizes the oldest on the
    // host (partitioned_param_coordinator.py). Which are still pending is only known when the
    // plan runs, so the host waits for the fetch three back, finished or not, before it
    // launches the module.
    events_.push_back(newest);
    if (events_.size() > 3) b_.host_wait_before_next(events_[events_.size() - 4]);
  }

  // Releases the parameters of the block at trace position t after op `op`, unless reused soon.
  void release(int t, int op) {
    const std::span<const int> own = params_of(t);
    for (int k = 0; k < static_cast<int>(own.size()); ++k) {
      const int p = own[k];
      if (buffer_[p] < 0 || reused_soon(t, k)) continue;
      b_.free(op, buffer_[p]);
      buffer_[p] = -1;
      const int next = next_use_[use_begin_[t] + k];
      if (next >= 0) frontier_ = std::min(frontier_, next);
      available_ -= l_.params()[p].numel;
    }
  }

  // release_backward_leftovers: everything still gathered at the end of backward.
  void release_all(int op) {
    for (int p : l_.real_params()) {
      if (buffer_[p] < 0) continue;
      b_.free(op, buffer_[p]);
      buffer_[p] = -1;
    }
    available_ = 0;
  }

 private:
  // Non-persistent parameters of the block at trace position t.
  std::span<const int> params_of(int t) const {
    return l_.gathered_params(l_.trace[t].block);
  }

  void gather(const std::vector<int>& params, const char* what) {
    std::int64_t elems = 0;
    for (int p : params) elems += l_.world * l_.partition_elems[p];
    int h2d = -1;
    if (l_.offload_param) {
      // Partitions come from (pinned) host memory first (partition_parameters.py).
      const Bytes bytes = elems / l_.world * l_.param_bytes;
      h2d = b_.op(b_.name(label_, ".h2d_params.", b_.plan().ops.size()),
                  b_.h2d_stream(), Phase::kForward, CopyWork{bytes, true, true});
    }
    const CollectiveWork work{CollectiveKind::kAllGather, elems * l_.param_bytes, l_.world};
    const std::size_t id = b_.plan().ops.size();
    const NameRef name = b_.name(label_, ".", what, ".", id);
    const int op = h2d >= 0 ? b_.op(name, b_.gather_stream(), Phase::kForward, work, {h2d})
                            : b_.op(name, b_.gather_stream(), Phase::kForward, work);
    for (int p : params) {
      buffer_[p] = b_.buffer(b_.name(label_, ".gathered.", id, ".", l_.params()[p].name),
                             l_.world * l_.partition_elems[p] * l_.param_bytes,
                             Device::kGpu, Category::kParams);
      b_.alloc(op, buffer_[p]);
      fetched_by_[p] = op;
      coalesced_[p] = params.size() > 1;
      available_ += l_.params()[p].numel;
    }
  }

  // True when p is used again within max_reuse_distance elements of the trace after t
  // (partitioned_param_coordinator.py: the scan counts every parameter of the coming modules,
  // block by block, and gives up once the count passes the distance). `k` is p's index in
  // params_of(t).
  bool reused_soon(int t, int k) const {
    const int next = next_use_[use_begin_[t] + k];
    if (next < 0) return false;
    return next == t + 1 || elems_before_[next] - elems_before_[t + 1] <= reuse_;
  }

  // For every trace position t and gathered parameter of its block, the next position that
  // reads it (-1: none); and the parameter elements of the trace before each position.
  void index_reuse() {
    const int n = static_cast<int>(l_.trace.size());
    use_begin_.assign(n + 1, 0);
    for (int t = 0; t < n; ++t) {
      use_begin_[t + 1] = use_begin_[t] + static_cast<int>(params_of(t).size());
    }
    next_use_.assign(use_begin_[n], -1);
    elems_before_.assign(n + 1, 0);
    for (int t = 0; t < n; ++t) {
      elems_before_[t + 1] = elems_before_[t] + l_.blocks()[l_.trace[t].block].param_numel;
    }
    std::vector<int> seen(l_.params().size(), -1);  // the nearest later position reading p
    for (int t = n - 1; t >= 0; --t) {
      const std::span<const int> own = params_of(t);
      for (std::size_t k = 0; k < own.size(); ++k) next_use_[use_begin_[t] + k] = seen[own[k]];
      for (int q : l_.blocks()[l_.trace[t].block].params) seen[q] = t;
    }
  }

  PlanBuilder& b_;
  const Layout& l_;
  std::string label_;
  std::int64_t max_live_, prefetch_, reuse_;
  std::int64_t available_ = 0;
  std::vector<int> buffer_;      // per param: its gathered buffer, or -1
  std::vector<int> fetched_by_;  // per param: the gather op that brought it
  std::vector<bool> coalesced_;  // per param: it came in a gather of several parameters
  std::vector<int> chosen_at_;   // per param: the trace position that last chose to prefetch it
  std::vector<int> scratch_;
  std::vector<int> events_;  // the newest gather each fetch waited for, in order
  int frontier_ = 0;         // no trace position before it holds a parameter not gathered
  std::vector<int> use_begin_;              // per trace position: offset into next_use_
  std::vector<int> next_use_;               // see index_reuse()
  std::vector<std::int64_t> elems_before_;  // per trace position
};

// The IPG bucket and its reduce-scatters for one backward.
class Scatterer {
 public:
  Scatterer(PlanBuilder& b, const std::string& label, int index)
      : b_(b), l_(b.layout()), label_(label), index_(index), bucket_(b, label, true) {}

  // Adds p's completed gradient from op `producer`.
  void add(int p, int producer) {
    if (bucket_.would_overflow(p)) flush(producer);
    bucket_.add(p, producer);
  }

  void flush(int producer) {
    // With more than max_param_reduce_events (2) reductions pending the host synchronizes the
    // oldest before issuing the next (stage3.py __reduce_and_partition_ipg_grads); as for
    // fetches, the plan cannot know which have finished, so it waits for the third back.
    const std::size_t k = flushes_.size();
    if (k >= 3) b_.host_wait_before_next(flushes_[k - 3]);
    std::int64_t padded = 0, shard = 0;
    for (int p : bucket_.params()) {
      padded += l_.world * l_.partition_elems[p];
      shard += l_.partition_elems[p];
    }
    const auto& params = bucket_.params();
    const bool single = params.size() == 1 && l_.params()[params[0]].numel % l_.world == 0;
    const int op = b_.op(b_.name(label_, ".reduce_scatter.", flushes_.size()),
                         b_.reduce_stream(), Phase::kReduce,
                         CollectiveWork{CollectiveKind::kReduceScatter, padded * l_.comm_bytes,
                                        l_.world},
                         {producer});
    // reduce_scatter_coalesced interleaves the bucket per rank into a new tensor.
    b_.at(op).transient_bytes = single ? 0 : padded * l_.comm_bytes;
    if (l_.offload_optimizer) {
      // partition_grads with a host buffer: the shard goes down (and, after micro-step 0, comes
      // up to be added first).
      const Bytes bytes = shard * l_.accum_bytes;
      std::vector<int> deps{op};
      if (index_ > 0) {
        deps = {b_.op({label_, ".grads_from_host.", flushes_.size()},
                      b_.h2d_stream(), Phase::kReduce, CopyWork{bytes, true, true}, {op})};
      }
      b_.op({label_, ".grads_to_host.", flushes_.size()}, b_.d2h_stream(),
            Phase::kReduce, CopyWork{bytes, false, true}, deps);
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
  GradBucket bucket_;
  std::vector<int> flushes_;
};

}  // namespace

void schedule_stage3(PlanBuilder& b, const configs::DsConfig& c) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  const Device pinned = Device::kHostPinned;
  // Parameter partitions (partition_parameters.py; the offload_param flat is always pinned).
  if (!l.offload_param) {
    b.persistent({"params.partitions"}, l.psi3 * e, Device::kGpu, Category::kParams, true);
  } else if (!l.param_on_nvme) {
    b.persistent({"params.partitions.cpu"}, l.psi3 * e, pinned, Category::kParams, true);
  } else {
    const auto& op = c.zero.offload_param;
    const std::int64_t in_cpu = std::min(l.psi3, op.max_in_cpu.value);
    b.persistent({"params.partitions.cpu"}, in_cpu * e, pinned, Category::kParams, true);
    b.persistent({"params.partitions.nvme"}, (l.psi3 - in_cpu) * e, Device::kNvme,
                 Category::kParams, true);
    b.persistent({"params.swap_buffers"}, op.buffer_count.value * op.buffer_size.value * e, pinned,
                 Category::kBuffers);
  }
  std::int64_t persistent_full = 0;
  for (int p : l.real_params()) {
    if (l.persistent[p]) persistent_full += l.world * l.partition_elems[p];
  }
  if (persistent_full > 0) {
    b.persistent({"params.persistent"}, persistent_full * e, Device::kGpu, Category::kParams);
  }
  // Optimizer: sub-groups below the partial-offload threshold stay on the GPU (stage3.py).
  const Bytes state = optimizer_state_bytes_per_param(c);
  const int groups = static_cast<int>(l.sub_groups.size());
  const int on_gpu = l.offload_optimizer
                         ? static_cast<int>((1.0 - l.offload_ratio) * groups)
                         : groups;
  std::int64_t gpu_elems = 0, host_elems = 0, largest_group = 0;
  for (int j = 0; j < groups; ++j) {
    (j < on_gpu ? gpu_elems : host_elems) += l.sub_groups[j];
    largest_group = std::max(largest_group, l.sub_groups[j]);
  }
  if (gpu_elems > 0) {
    b.persistent({"master_params.fp32"}, gpu_elems * 4, Device::kGpu, Category::kOptimizerStates,
                 true);
    b.persistent({"optimizer_states"}, gpu_elems * state, Device::kGpu,
                 Category::kOptimizerStates, true);
  }
  if (host_elems > 0) {
    const Device where = l.optimizer_on_nvme ? Device::kNvme : Device::kHostPageable;
    b.persistent({"master_params.fp32.offload"}, host_elems * 4, where,
                 Category::kOptimizerStates);
    b.persistent({"optimizer_states.offload"}, host_elems * state, where,
                 Category::kOptimizerStates);
    if (l.optimizer_on_nvme) {
      const auto& oo = c.zero.offload_optimizer;
      b.persistent({"optimizer.swap_buffers"}, oo.buffer_count.value * largest_group * 4, pinned,
                   Category::kBuffers);
      b.persistent({"grads.fp32.staging"}, largest_group * 4, Device::kHostPageable,
                   Category::kBuffers);
    } else {
      b.persistent({"grads.fp32.cpu"}, host_elems * 4,
                   l.pin_optimizer ? pinned : Device::kHostPageable, Category::kGrads);
    }
  }
  b.persistent({"grads.partitions"}, l.psi3 * l.accum_bytes,
               l.offload_optimizer ? (l.pin_optimizer ? pinned : Device::kHostPageable)
                                   : Device::kGpu,
               Category::kGrads, true);
  b.persistent({"ipg_bucket"}, l.bucket_elems * l.comm_bytes, Device::kGpu, Category::kBuffers);

  const GradFlow& flow = l.flow();
  // Without optimizer offload every micro-step does the same work.
  for_each_micro_step(b, !l.offload_optimizer, [&](const std::string& label, int index) {
    Fetcher fetcher(b, c, label);
    Scatterer scatterer(b, label, index);
    std::size_t t = 0;  // trace position of the block about to run
    Bytes pending_coalesced = 0;
    MicroStepHooks hooks;
    hooks.before = [&](int, Pass, std::vector<int>* deps) {
      fetcher.fetch(static_cast<int>(t), deps, &pending_coalesced);
    };
    hooks.after = [&](int blk, Pass pass, int op) {
      b.at(op).transient_bytes += pending_coalesced;
      if (pass == Pass::kBackward) {
        b.at(op).transient_bytes += flow.largest[blk] * e;  // each gradient until copied to IPG
        for (int p : flow.completed[blk]) scatterer.add(p, op);
      }
      fetcher.release(static_cast<int>(t), op);
      ++t;
    };
    hooks.end_backward = [&](int last_op) {
      const int epilogue = scatterer.finish(last_op);
      fetcher.release_all(epilogue);
    };
    emit_micro_step(b, label, hooks);
  });

  b.begin_segment("step", 1);
  const int compute = b.compute_stream();
  // step(): fp16 only checks for overflow (stage3.py _overflow_check_and_loss_scale_update);
  // an overflow skips everything after it, _post_step included.
  const bool fp16 = l.precision == configs::Precision::kFp16;
  int last = b.last_op();
  if (fp16) last = overflow_check(b, last);
  const int first_skipped = static_cast<int>(b.plan().ops.size());
  // _get_norm_groups: a norm per sub-group, each ending in a device scalar built on the host
  // (torch.tensor(-1.0, device=...)), about 4 host round trips per sub-group with offload.
  last = grad_norm(b, l.offload_optimizer ? 0 : l.psi3 * l.accum_bytes, last,
                   (l.offload_optimizer ? 4 : 1) * std::max(groups, 1));
  for (int j = 0; j < groups; ++j) {
    const std::int64_t s = l.sub_groups[j];
    const std::string name = "step.sub_group." + std::to_string(j);
    if (j < on_gpu) {
      // _prepare_fp32_grad_for_sub_group: a flattened copy, then its fp32 cast.
      const int grads32 = b.buffer({name, ".grads.fp32"}, s * 4, Device::kGpu, Category::kGrads);
      const int cast = b.op({name, ".cast_grads"}, compute, Phase::kStep,
                            MemoryWork{s * l.accum_bytes, s * (l.accum_bytes + 4)});
      b.alloc(cast, grads32);
      b.at(cast).transient_bytes = s * l.accum_bytes;
      const int adam = b.op({name, ".optimizer"}, compute, Phase::kStep,
                            OptimizerWork{false, s, s * 28});
      b.free(adam, grads32);
      b.op({name, ".copy_params"}, compute, Phase::kStep, MemoryWork{s * 4, s * e});
    } else {
      // The sub-group loop runs on the host thread, one sub-group after the other: NVMe swap
      // in, CPU Adam, the 16-bit update, swap out (stage3.py step).
      int ready = last;
      if (l.optimizer_on_nvme) {
        ready = b.op({name, ".swap_in"}, b.nvme_stream(), Phase::kStep,
                     NvmeWork{s * (4 + state), true}, {ready});
        b.at(ready).host_waits = true;
      }
      // CPU Adam (28 bytes per element), then the fp32 partition is cast to 16 bits on the CPU
      // for the copy below (4 + e bytes per element more).
      const Bytes cast_bytes = l.offload_param ? 0 : s * (4 + e);
      last = b.host_op({name, ".optimizer.cpu"}, Phase::kStep,
                       OptimizerWork{true, s, s * 28 + cast_bytes}, {ready});
      if (l.optimizer_on_nvme) {
        last = b.op({name, ".swap_out"}, b.nvme_stream(), Phase::kStep,
                    NvmeWork{s * (4 + state), false}, {last});
      }
      if (!l.offload_param) {
        // _reassign_or_swap_out_partitioned_parameters: fp16_partitioned_groups_flat.copy_(
        // fp32 flat) with non_blocking=False from unpinned memory: the host waits.
        last = b.op({name, ".params_to_gpu"}, b.h2d_stream(), Phase::kStep,
                    CopyWork{s * e, true, false}, {last});
        b.at(last).host_waits = true;
      }
    }
  }
  if (persistent_full > 0) {
    // _post_step: the persistent parameters are gathered again, then torch.cuda.synchronize()
    // (partition_parameters.py).
    b.op({"step.allgather_persistent"}, compute, Phase::kPostStep,
         CollectiveWork{CollectiveKind::kAllGather, persistent_full * e, l.world}, {b.last_op()});
    b.device_sync({"step.post_step_sync"}, Phase::kPostStep);
  }
  if (fp16) mark_skipped_on_overflow(b, first_skipped);
  end_of_step_sync(b);
  b.end_segment();
}

}  // namespace zs::plan
