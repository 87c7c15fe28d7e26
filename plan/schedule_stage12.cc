// ZeRO stages 1 and 2 (zero/stage_1_and_2.py DeepSpeedZeroOptimizer at 0.19.6), for the rank
// that owns the last partition: it holds the padding, and in stage 2 it receives its gradients
// first in backward, while activations are still live.
//
// - Persistent: the flat 16-bit parameters (padded to 2N), this rank's fp32 master partition
//   and optimizer states; with offload these live on the CPU with pinned fp32 gradient and
//   16-bit parameter partitions and an L_max temp buffer on each side.
// - Gradients go through k = 1 (+1 with overlap_comm) IPG buffers of reduce_bucket_size
//   elements in the model dtype, allocated at the first gradient hook (from 0.18.3; before, in
//   backward_prologue, ahead of the loss's backward). A bucket is reduced
//   when the next gradient would overflow it: one all_reduce per bucket (ZeRO-1/2 use no NCCL
//   reduce-scatter), on the reduction stream with overlap_comm, where the compute stream waits
//   for the previous bucket before the next. This rank keeps its slice in grads_in_partition
//   (S elements: every parameter touching its partition, at full size).
// - Stage 1 accumulates full gradients over the micro-steps and reduces at the last one only;
//   its IPG buffers live from micro-step 0's first hook to that backward's epilogue. Without
//   overlap_comm the reduction walks the parameters in group order after backward.
//   Stage 2 reduces every micro-step; from micro-step 1 on, a second grads_in_partition is
//   added into micro-step 0's at the epilogue.
// - Step: the owned gradients are flattened and cast to fp32 (P x (b + 4) transient), the
//   optimizer runs, the 16-bit partition is updated and all-gathered in place.
// Simpler than the code: one parameter group (the HF Trainer's no-decay group adds at most 2N
// padding elements); full gradients are freed per block rather than per parameter.
#include <algorithm>

#include "plan/grad_bucket.h"
#include "plan/schedules.h"

namespace zs::plan {
namespace {

struct ReducerOptions {
  bool first = false;               // the step's first micro-step
  bool boundary = false;            // the micro-step ends the gradient accumulation
  bool keep_partition = false;      // grads_in_partition outlives this backward (the step reads it)
  bool partition_is_state = false;  // it is the gradient storage the ZeRO paper counts (stage 2)
  bool bucket_owns_grads = false;   // a gradient is counted from the bucket (stage 1 reduces a
                                    // large parameter from its full gradient, already counted)
};

// The IPG bucket and its reductions for one backward.
class Reducer {
 public:
  Reducer(PlanBuilder& b, const std::string& label, std::vector<int>* ipg, ReducerOptions o)
      : b_(b),
        l_(b.layout()),
        label_(label),
        ipg_(ipg),
        first_(o.first),
        boundary_(o.boundary),
        keep_partition_(o.keep_partition),
        partition_is_state_(o.partition_is_state),
        bucket_(b, label, o.bucket_owns_grads) {}

  bool would_flush(int p) const { return bucket_.would_overflow(p); }

  // Adds parameter p's gradient, produced by op `producer`, flushing first when it would
  // overflow the bucket. Returns the flush the next compute op must wait for, or -1.
  int add(int p, int producer) {
    int wait = -1;
    if (would_flush(p)) wait = flush(producer);
    ensure_ipg(producer);
    bucket_.add(p, producer);
    // reduce_independent_p_g_buckets_and_remove_grads: copied into the bucket unless larger.
    b_.host_calls_before_next(
        l_.params()[p].numel > l_.bucket_elems ? HostTask::kGradReduceLarge : HostTask::kGradReduce,
        1);
    return wait;
  }

  void ensure_ipg(int producer) {
    if (!ipg_->empty() || !l_.contiguous_gradients) return;
    const int k = l_.overlap_comm ? 2 : 1;
    for (int i = 0; i < k; ++i) {
      ipg_->push_back(b_.buffer(b_.name(label_, ".ipg.", i), l_.bucket_elems * l_.param_bytes,
                                Device::kGpu, Category::kBuffers));
      b_.alloc(producer, ipg_->back());
    }
    b_.host_calls_before_next(HostTask::kIpgBuffer, k);
  }

  // Reduces the current bucket. Returns the previous flush, which compute waits for before the
  // next bucket with overlap_comm (stage_1_and_2.py reduce_ipg_grads), or -1.
  int flush(int producer) {
    const Owned owned = owned_of_bucket();
    flush_host_calls(owned);
    const std::vector<Piece> parts = pieces();
    const bool own_partition = owned.params > 0 && !l_.offload_optimizer && partition_ < 0;
    if (own_partition) b_.host_calls_before_next(HostTask::kPartitionBuffer, 1);
    const int op = reduce(parts, producer);
    if (own_partition) {
      partition_ = b_.buffer(b_.name(label_, ".grads_in_partition"), l_.owned_full * l_.param_bytes,
                             Device::kGpu, Category::kGrads);
      if (partition_is_state_) {
        b_.plan().buffers[partition_].model_state_bytes = l_.partition * l_.param_bytes;
      }
      b_.alloc(op, partition_);
    }
    if (l_.offload_optimizer) send_to_host(owned, parts, op);
    bucket_.reduced(op);
    const int previous = flushes_.empty() ? -1 : flushes_.back();
    flushes_.push_back(op);
    return l_.overlap_comm ? previous : -1;
  }

  // The backward epilogue: reduces the last bucket, adds this micro-step's partition gradients
  // into `accumulate_into`'s, and releases the IPG buffers when `release_ipg`.
  int finish(int last_op, int accumulate_into, bool release_ipg) {
    if (!bucket_.empty()) flush(last_op);
    const Bytes s = l_.owned_full * l_.param_bytes;
    const bool add = accumulate_into >= 0 && partition_ >= 0;
    if (add) {
      b_.host_calls_before_next(HostTask::kPartitionAccumulate, l_.owned_params);
    }
    const int op = b_.op(b_.name(label_, ".epilogue"), b_.compute_stream(), Phase::kReduce,
                         MemoryWork{add ? 2 * s : 0, add ? s : 0},
                         {flushes_.empty() ? last_op : flushes_.back()});
    if (release_ipg) {
      for (int buf : *ipg_) b_.free(op, buf);
      ipg_->clear();
    }
    if (partition_ >= 0 && !keep_partition_) b_.free(op, partition_);
    return op;
  }

  int partition_buffer() const { return partition_; }

 private:
  // One collective of a bucket's reduction: `elems` elements made of `slices` gradient slices
  // (`own` of them this rank's), all-reduced (dst -1) or reduced to rank dst.
  struct Piece {
    std::int64_t elems = 0;
    int slices = 0;
    int dst = -1;
    std::vector<ParamSlice> parts;  // the gradient elements, in the piece's order
    int own = 0;
  };

  // The collectives that reduce the current bucket (stage_1_and_2.py average_tensor at 0.19.6):
  // - without contiguous_gradients (buffered_reduce_fallback over the bucket's gradients) or
  //   with reduce_scatter off (gradient_reduction_w_predivide): one all_reduce of the bucket;
  // - otherwise each gradient is cut into slices at the partition boundaries, consecutive
  //   slices of one owner merged. With use_multi_rank_bucket_allreduce (the default) the slices
  //   are all-reduced in order, a collective closing as soon as its slices pass
  //   reduce_bucket_size (allreduce_and_scatter): a parameter larger than the bucket that
  //   straddles a boundary becomes two all_reduces. Without it each owner's slices are reduced
  //   to it the same way (allreduce_no_retain with rank=dst), owners in order of first slice.
  std::vector<Piece> pieces() const {
    if (!l_.contiguous_gradients || !l_.reduce_scatter) {
      // `slices` 2: flattened (a copy); its host calls (not recorded) taken as two slices'
      Piece whole{bucket_.elems(), 2, -1, {}};
      if (b_.keeps_slices()) {
        for (int p : bucket_.params()) whole.parts.push_back({p, 0, l_.params()[p].numel});
      }
      return {whole};
    }
    std::vector<Piece> slices;  // {elems, 1, owner, its parts}
    for (int p : bucket_.params()) {
      const std::int64_t start = l_.flat_offset[p];
      const std::int64_t end = start + l_.params()[p].numel;
      for (std::int64_t pos = start; pos < end;) {
        const int owner = static_cast<int>(pos / l_.partition);
        const std::int64_t stop = std::min(end, (owner + 1) * l_.partition);
        if (slices.empty() || slices.back().dst != owner) {
          slices.push_back(Piece{0, 1, owner, {}, owner == l_.rank ? 1 : 0});
        }
        slices.back().elems += stop - pos;
        if (b_.keeps_slices()) slices.back().parts.push_back({p, pos - start, stop - start});
        pos = stop;
      }
    }
    std::vector<Piece> out;
    auto cut = [&](int dst) {
      Piece open{0, 0, l_.multi_rank_allreduce ? -1 : dst, {}};
      for (const Piece& s : slices) {
        if (!l_.multi_rank_allreduce && s.dst != dst) continue;
        open.elems += s.elems;
        ++open.slices;
        open.own += s.own;
        open.parts.insert(open.parts.end(), s.parts.begin(), s.parts.end());
        if (open.elems > l_.bucket_elems) {
          out.push_back(open);
          open.elems = open.slices = open.own = 0;
          open.parts.clear();
        }
      }
      if (open.slices > 0) out.push_back(open);
    };
    if (l_.multi_rank_allreduce) {
      cut(-1);
    } else {
      std::vector<int> owners;
      for (const Piece& s : slices) {
        if (std::find(owners.begin(), owners.end(), s.dst) == owners.end()) {
          owners.push_back(s.dst);
        }
      }
      for (int owner : owners) cut(owner);
    }
    return out;
  }

  // What of the current bucket touches this rank's partition: elements, parameters and their
  // full elements.
  struct Owned {
    std::int64_t elems = 0, full = 0;
    int params = 0;
  };
  Owned owned_of_bucket() const {
    Owned o;
    for (int p : bucket_.params()) {
      const std::int64_t mine = l_.owned_elems(p);
      o.elems += mine;
      if (mine > 0) {  // owned_by_rank(p): parameters have elements
        o.full += l_.params()[p].numel;
        ++o.params;
      }
    }
    return o;
  }

  // reduce_ipg_grads' calls: the bucket's reduction, then its parameters of this rank's
  // partition taken into grads_in_partition, or, offloaded, sent to the host
  // (copy_grads_in_partition). Offloaded, every micro-step after the first accumulates on the
  // host through the GPU (async_accumulate_grad_in_cpu_via_gpu), the boundary's too, before its
  // own work.
  void flush_host_calls(const Owned& owned) {
    b_.host_calls_before_next(
        l_.overlap_comm ? HostTask::kBucketFlushOverlap : HostTask::kBucketFlush, 1);
    if (!l_.offload_optimizer) {
      b_.host_calls_before_next(HostTask::kPartitionCopy, owned.params);
      return;
    }
    if (!first_) b_.host_calls_before_next(HostTask::kOffloadAccumulate, owned.params);
    if (boundary_) b_.host_calls_before_next(HostTask::kOffloadGrad, owned.params);
    if (first_ && !boundary_) b_.host_calls_before_next(HostTask::kPartitionCopy, owned.params);
  }

  // The collectives of `parts`, one after the other after op `producer`. Returns the last.
  int reduce(const std::vector<Piece>& parts, int producer) {
    int op = -1;
    for (const Piece& piece : parts) {
      const bool to_root = piece.dst >= 0;
      b_.host_calls_before_next(HostTask::kFlushSlice, piece.slices);
      b_.host_calls_before_next(HostTask::kFlushKernel, piece.own + (piece.slices > 1 ? 1 : 0));
      if (l_.overlap_comm) b_.host_calls_before_next(HostTask::kFlushStreamRecord, 1 + piece.own);
      // average_tensor and buffered_reduce_fallback's allreduce_bucket divide before reducing;
      // gradient_reduction_w_predivide (contiguous gradients without reduce_scatter, with
      // postscale_gradients) multiplies the sum by 1/N.
      CollectiveWork w{.kind = to_root ? CollectiveKind::kReduce : CollectiveKind::kAllReduce,
                       .dtype = l_.comm_dtype,
                       .role = CollectiveRole::kGradients,
                       .average = l_.reduce_scatter || !l_.contiguous_gradients
                                      ? Average::kDivideBefore
                                      : Average::kMultiplyAfter,
                       .bytes = piece.elems * l_.comm_bytes,
                       .group_size = l_.world,
                       .root = to_root ? piece.dst : 0};
      w.slices = b_.slices(piece.parts);
      op = b_.op(b_.name(label_, to_root ? ".reduce." : ".allreduce.", collectives_++),
                 b_.reduce_stream(), Phase::kReduce, w, {op >= 0 ? op : producer});
      // The slices are flattened (a copy unless there is one: torch's _flatten_dense_tensors)
      // and cast when the communication dtype differs (allreduce_bucket).
      b_.at(op).transient_bytes =
          (piece.slices > 1 ? piece.elems * l_.param_bytes : 0) +
          (l_.comm_bytes != l_.param_bytes ? piece.elems * l_.comm_bytes : 0);
    }
    return op;
  }

  // Offloaded, the owned gradients go to the host after reduction `op`: fp32 slices at the
  // boundary, full 16-bit gradients to accumulate before it (async_accumulate_grad_in_cpu_via_
  // gpu). A bucket this rank owns nothing of gets an empty copy: other ranks copy their part of
  // it, and the Plan, one rank's, names what every rank moves (the simulator prices an empty
  // copy at nothing).
  void send_to_host(const Owned& owned, const std::vector<Piece>& parts, int op) {
    const Bytes bytes = boundary_ ? owned.elems * 4 : owned.full * l_.param_bytes;
    CopyWork copy{bytes, false, true, CopyRole::kGradients};
    if (b_.keeps_slices()) {
      std::vector<ParamSlice> all;
      for (const Piece& piece : parts)
        all.insert(all.end(), piece.parts.begin(), piece.parts.end());
      copy.slices = b_.slices(all);
    }
    // At the boundary each of the bucket's parameters of this partition is tested for inf and
    // NaN with a bool() of a device tensor before its copy (update_offload_overflow_tracker):
    // one host-device round trip each, which also waits for the reduction. The copies run on
    // the current stream, behind the reduction and the backward's kernels ("copy_grad_stream is
    // disabled because of race with reduce", reduce_ipg_grads).
    int after = op;
    if (boundary_ && owned.params > 0) {
      after = b_.host_sync({label_, ".offload_flag_sync.", flushes_.size()}, Phase::kReduce, {op},
                           owned.params);
    }
    const int d2h = b_.op(b_.name(label_, ".grads_to_host.", flushes_.size()), b_.reduce_stream(),
                          Phase::kReduce, copy, {after});
    if (boundary_) b_.at(d2h).transient_bytes = owned.elems * 4;
  }

  PlanBuilder& b_;
  const Layout& l_;
  std::string label_;
  std::vector<int>* ipg_;
  bool first_;
  bool boundary_;
  bool keep_partition_;
  bool partition_is_state_;
  GradBucket bucket_;
  int partition_ = -1;
  std::vector<int> flushes_;
  int collectives_ = 0;
};

// Full gradients of stage 1, per block, released as their last parameter is copied into the
// IPG buffer at the boundary.
class FullGrads {
 public:
  void track(int buffer, const std::vector<int>& params) {
    for (int p : params) {
      if (p >= static_cast<int>(buffer_of_.size())) buffer_of_.resize(p + 1, -1);
      buffer_of_[p] = buffer;
    }
    if (buffer >= static_cast<int>(left_.size())) left_.resize(buffer + 1, 0);
    left_[buffer] = static_cast<int>(params.size());
  }
  // Releases p's block buffer at `op` when p was its last parameter.
  void copied(PlanBuilder& b, int p, int op) {
    if (p >= static_cast<int>(buffer_of_.size()) || buffer_of_[p] < 0) return;
    if (--left_[buffer_of_[p]] == 0) b.free(op, buffer_of_[p]);
  }

 private:
  std::vector<int> buffer_of_;  // per parameter id, its block buffer or -1
  std::vector<int> left_;       // per buffer id, its parameters not yet copied
};

// How stage 1 and stage 2 differ in one run of micro-steps, as data (rules_for).
struct RunRules {
  ReducerOptions reducer;
  bool stage1_ipg = false;    // the IPG buffers live from micro-step 0's first hook to the boundary
  bool full_grads = false;    // full gradients kept through the accumulation (FullGrads)
  bool hooks_reduce = false;  // the gradient hooks reduce
  bool walk = false;          // reduce_gradients walks the parameters after backward
  bool epilogue = false;      // the backward epilogue runs
  bool accumulate = false;    // the partition gradients are added into micro-step 0's
  bool release_ipg = false;   // the epilogue frees the IPG buffers
  bool grads_from_host = false;  // offloaded, the accumulated gradients come back up
};

// Stage 2 reduces in the gradient hooks every micro-step, adds later micro-steps'
// grads_in_partition into the first one's (the gradient storage the ZeRO paper counts) and
// frees its IPG buffers at each epilogue. Stage 1 keeps full gradients and its
// grads_in_partition through the accumulation and reduces at the boundary alone: in the hooks
// with overlap_comm, after backward (reduce_gradients) without.
RunRules rules_for(const Layout& l, const MicroStepRun& run) {
  const bool first = run.first == 0;
  const bool two = l.stage == 2;
  RunRules r;
  r.reducer = {.first = first,
               .boundary = run.boundary,
               .keep_partition = !two || first,
               .partition_is_state = two && first,
               .bucket_owns_grads = two};
  r.stage1_ipg = !two;
  r.full_grads = !two;
  r.hooks_reduce = two || (run.boundary && l.overlap_comm);
  r.epilogue = two || run.boundary;
  r.walk = !two && run.boundary && !l.overlap_comm;
  r.accumulate = two && !first;
  r.release_ipg = two || run.boundary;
  r.grads_from_host = l.offload_optimizer && two && !first && !run.boundary;
  return r;
}

// What runs of micro-steps pass on: stage 1's IPG buffers and full gradients, the
// grads_in_partition the step consumes.
struct Carried {
  FullGrads full;
  std::vector<int> stage1_ipg;
  int partition0 = -1;
};

// The persistent model states: the flat 16-bit parameters (padded to 2N), the fp32 master
// partition and optimizer states; offloaded, on the CPU with the fp32 gradient and 16-bit
// parameter partitions and an L_max temp buffer on each side.
void declare_states(PlanBuilder& b) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  const std::int64_t part = l.partition;
  const bool offload = l.offload_optimizer;
  const Device host = l.pin_optimizer ? Device::kHostPinned : Device::kHostPageable;
  b.persistent({"params.flat"}, l.padded * e, Device::kGpu, Category::kParams, true);
  b.persistent({"master_params.fp32"}, part * 4, offload ? host : Device::kGpu,
               Category::kOptimizerStates, true);
  // CPU Adam creates its states with zeros_like on the CPU (pageable).
  b.persistent({"optimizer_states"}, part * l.optimizer_state_bytes,
               offload ? Device::kHostPageable : Device::kGpu, Category::kOptimizerStates, true);
  if (!offload) return;
  b.persistent({"grads.fp32.cpu"}, part * 4, host, Category::kGrads, true);
  b.persistent({"params.16bit.cpu"}, part * e, host, Category::kParams);
  b.persistent({"offload_temp.cpu"}, l.largest_param * e, host, Category::kBuffers);
  b.persistent({"offload_temp.gpu"}, l.largest_param * e, Device::kGpu, Category::kBuffers);
  if (l.stage == 2 && l.micro_steps > 1) {
    // async_accumulate_grad_in_cpu_via_gpu: full-size CPU buffers, never freed.
    b.persistent({"grads.accumulated.cpu"}, l.owned_full * e, host, Category::kGrads);
  }
}

// Full gradients through the accumulation, for backward op `op` of block `block`: micro-step 0
// creates them, later ones add into them (AccumulateGrad); the first gradient hook of
// micro-step 0 sets up the IPG buffers (setup_buckets).
void keep_full_grads(PlanBuilder& b, const std::string& label, bool first, int block, int op,
                     Reducer& reducer, FullGrads& full) {
  const Layout& l = b.layout();
  const GradFlow& flow = l.flow();
  std::int64_t numel = 0;
  for (int p : flow.created[block]) numel += l.params()[p].numel;
  if (first && numel > 0) {
    const int buf = b.buffer(b.name(label, ".grads.", l.blocks()[block].name),
                             numel * l.param_bytes, Device::kGpu, Category::kGrads, true);
    b.alloc(op, buf);
    full.track(buf, flow.created[block]);
  } else if (!first) {
    b.at(op).transient_bytes += flow.largest[block] * l.param_bytes;  // AccumulateGrad's input
    b.at(op).host_calls.add(HostTask::kAccumulateGrad,
                            static_cast<int>(flow.created[block].size()));
  }
  if (first && !flow.completed[block].empty()) reducer.ensure_ipg(op);
}

// Backward op `op` of block `block`: its gradients, and the hooks that run as autograd
// produces them, before the next launch, every micro-step (grad_handling_hook). Returns the
// reduction the next block's compute waits for (overlap_comm), or -1.
int backward_block(PlanBuilder& b, const RunRules& r, const std::string& label, int block, int op,
                   Reducer& reducer, FullGrads& full) {
  const Layout& l = b.layout();
  const std::vector<int>& completed = l.flow().completed[block];
  if (r.full_grads) {
    keep_full_grads(b, label, r.reducer.first, block, op, reducer, full);
  } else {
    b.at(op).transient_bytes += l.flow().largest[block] * l.param_bytes;  // until copied
  }
  b.host_calls_before_next(HostTask::kGradHook, static_cast<int>(completed.size()));
  int wait = -1;
  if (!r.hooks_reduce) return wait;
  for (int p : completed) {
    const int w = reducer.add(p, op);
    if (w >= 0) wait = w;
    if (r.full_grads) full.copied(b, p, op);
  }
  return wait;
}

// reduce_gradients walks the parameters in group order after backward (after op `last_op`),
// copying each into the IPG buffer (which frees its full gradient) and flushing full buckets.
// Each parameter goes through reduce_ready_partitions_and_remove_grads, as the hooks would have
// (stage_1_and_2.py reduce_gradients), with the GPU idle.
void walk_after_backward(PlanBuilder& b, const std::string& label, int last_op, Reducer& reducer,
                         FullGrads& full) {
  const Layout& l = b.layout();
  int walk = -1;
  for (int p : l.real_params()) {
    if (walk >= 0 && reducer.would_flush(p)) {
      reducer.flush(walk);
      walk = -1;
    }
    if (walk < 0) {
      walk = b.op(b.name(label, ".copy_to_ipg.", b.plan().ops.size()), b.compute_stream(),
                  Phase::kReduce, MemoryWork{}, {last_op});
    }
    reducer.add(p, walk);
    auto& copy = std::get<MemoryWork>(b.at(walk).work);
    copy.bytes_read += l.params()[p].numel * l.param_bytes;
    copy.bytes_written += l.params()[p].numel * l.param_bytes;
    full.copied(b, p, walk);
  }
}

// The backward epilogue after op `last_op`: the last bucket, the partition gradients added up,
// independent_gradient_partition_epilogue's device synchronize with overlap_comm; offloaded
// between the first and the boundary, the accumulated gradients back up.
void epilogue(PlanBuilder& b, const RunRules& r, const std::string& label, int last_op,
              Reducer& reducer, Carried& carried) {
  const Layout& l = b.layout();
  if (r.walk) walk_after_backward(b, label, last_op, reducer, carried.full);
  reducer.finish(last_op, r.accumulate ? carried.partition0 : -1, r.release_ipg);
  if (l.overlap_comm) b.device_sync({label, ".epilogue_sync"}, Phase::kReduce);
  if (r.reducer.keep_partition) carried.partition0 = reducer.partition_buffer();
  if (r.grads_from_host) {
    CopyWork up{l.owned_full * l.param_bytes, true, true, CopyRole::kGradients};
    up.slices = b.flat_group();
    b.op(b.name(label, ".grads_from_host"), b.h2d_stream(), Phase::kReduce, up, {b.last_op()});
  }
}

// The micro-steps of run `run`: the model's ops, each after the reduction it waits for, the
// gradients of backward's blocks, the epilogue.
void micro_steps(PlanBuilder& b, const MicroStepRun& run, Carried& carried) {
  const RunRules r = rules_for(b.layout(), run);
  begin_micro_steps(b, run);
  std::vector<int> stage2_ipg;
  Reducer reducer(b, run.label, r.stage1_ipg ? &carried.stage1_ipg : &stage2_ipg, r.reducer);
  int wait = -1;  // with overlap_comm, the reduction the next block's compute waits for
  bool backward_started = false;
  MicroStepCompute model(b, run.label);
  while (!model.done()) {
    const TraceEntry t = model.next();
    const int waits_for = wait;  // no allocation per block: a sweep plans thousands
    wait = -1;
    const int op = waits_for >= 0 ? model.run(std::span<const int>(&waits_for, 1)) : model.run();
    if (t.pass != Pass::kBackward) continue;
    if (!backward_started && !b.layout().ipg_at_first_grad_hook) {
      // Before 0.18.3 backward_prologue allocated the IPG buffers before loss.backward(), so
      // they are live from the first backward kernel on (the loss and LM head's, where the peak
      // usually is).
      reducer.ensure_ipg(op);
    }
    backward_started = true;
    wait = backward_block(b, r, run.label, t.block, op, reducer, carried.full);
  }
  const int last_op = model.finish();
  if (r.epilogue) epilogue(b, r, run.label, last_op, reducer, carried);
  end_micro_steps(b, run, false);
}

// Offloaded (stage_1_and_2.py step, cpu_offload branch), after op `last`:
// complete_grad_norm_calculation_for_cpu_offload (a norm and an .item() per parameter); on the
// host thread, in order, the unscale pass over the fp32 gradients, run whatever the scale
// (unscale_and_clip_grads: 8 bytes per element), DeepSpeedCPUAdam (28: fp32 param, grad, m, v
// read, param, m, v written), and the cast of the fp32 partition into the 16-bit pinned buffer
// (4 + e); then the copy up, without blocking the host, and the all-gather.
void step_offloaded(PlanBuilder& b, int last) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  const std::int64_t part = l.partition;
  const int synced =
      grad_norm(b, l.owned_full * e, Dtype::kFp32, last, std::max(l.owned_params, 1) + 1);
  const int adam = b.host_op({"step.optimizer.cpu"}, Phase::kStep,
                             OptimizerWork{true, part, part * (8 + 28 + 4 + e)}, {synced});
  b.at(adam).step_role = StepRole::kUnscaleClip;  // unscale_and_clip_grads, on the host
  const int up = b.op({"step.params_to_gpu"}, b.h2d_stream(), Phase::kStep,
                      CopyWork{part * e, true, l.pin_optimizer, CopyRole::kParams, adam}, {adam});
  b.op({"step.allgather_params"}, b.compute_stream(), Phase::kPostStep, gather_flat_group(b, l),
       {up});
}

// On the GPU, after op `last`: scaled_global_norm over the owned gradients
// (mask_nan_or_inf_with_val_inplace builds a device scalar with torch.tensor(-1.0, device=...),
// which synchronizes the stream: runtime/utils.py get_global_norm_of_tensors); the gradients
// flattened and cast to fp32, the optimizer, the 16-bit partition updated and all-gathered.
void step_on_gpu(PlanBuilder& b, int last, int partition0) {
  const Layout& l = b.layout();
  const Bytes e = l.param_bytes;
  const std::int64_t part = l.partition;
  const int compute = b.compute_stream();
  grad_norm(b, part * e, Dtype::kFp32, last, 1);
  const int grads32 = b.buffer({"step.grads.fp32"}, part * 4, Device::kGpu, Category::kGrads);
  const int cast =
      b.op({"step.cast_grads"}, compute, Phase::kStep, MemoryWork{part * e, part * (e + 4)});
  b.alloc(cast, grads32);
  b.at(cast).transient_bytes = part * e;  // the flattened 16-bit copy
  // The 16-bit partition gradients are dropped once cast, before the inner optimizer's step()
  // (stage_1_and_2.py step: averaged_gradients[i] = None; the oracle's snapshot at the inner
  // step has the fp32 gradients and no 16-bit ones).
  if (partition0 >= 0) b.free(cast, partition0);
  const int adam =
      b.op({"step.optimizer"}, compute, Phase::kStep, OptimizerWork{false, part, part * 28});
  b.at(adam).step_role = StepRole::kUnscaleClip;  // unscale_and_clip_grads before step()
  b.free(adam, grads32);
  b.op({"step.copy_params"}, compute, Phase::kStep, MemoryWork{part * 4, part * e});
  b.op({"step.allgather_params"}, compute, Phase::kPostStep, gather_flat_group(b, l));
}

// The optimizer step. Its Python and ATen calls where they run: per gradient of the partition
// (the overflow test and the norm; offloaded, the norm's .item()) and the rest before the
// overflow check; per parameter (_update_model_bit16_weights) after the all-gather's launch:
// before the timer's sync, or, with none, with the all-gather itself. step(): the overflow
// check (an all_reduce of one flag and its .item()), skipped on overflow from here on: the
// norm, the optimizer, the 16-bit update and the all-gather.
void optimizer_step(PlanBuilder& b, int partition0) {
  const Layout& l = b.layout();
  const bool offload = l.offload_optimizer;
  b.begin_segment("step", 1);
  b.host_calls_before_next(HostTask::kEngineStep, 1);
  b.host_calls_before_next(offload ? HostTask::kOffloadStepParam : HostTask::kZeroStepGrad,
                           l.owned_params);
  b.host_calls_before_next(offload ? HostTask::kOffloadStepBody : HostTask::kZeroStepBody, 1);
  int last = b.last_op();
  if (l.check_overflow) last = overflow_check(b, last);
  const int first_skipped = static_cast<int>(b.plan().ops.size());
  if (offload) {
    step_offloaded(b, last);
  } else {
    step_on_gpu(b, last, partition0);
  }
  if (l.check_overflow) mark_skipped_on_overflow(b, first_skipped);
  const int params = static_cast<int>(l.real_params().size());
  if (l.timer_sync) {
    b.host_calls_before_next(HostTask::kZeroStepParam, params);
  } else {
    b.at(b.last_op()).host_calls.add(HostTask::kZeroStepParam, params);
  }
  end_of_step_sync(b);
  b.end_segment();
}

}  // namespace

void schedule_stage12(PlanBuilder& b) {
  declare_states(b);
  Carried carried;
  for (const MicroStepRun& run : micro_step_runs(b.layout(), false)) {
    micro_steps(b, run, carried);
  }
  optimizer_step(b, carried.partition0);
}

}  // namespace zs::plan
