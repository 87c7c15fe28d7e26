// The Plan: one optimizer step (G gradient-accumulation micro-steps) of one representative
// data-parallel rank, as DeepSpeed runs it. It is the contract between plan/ (which decides
// what happens and when: DeepSpeed's scheduling policy lives only here) and its two plain
// interpreters: sim/ prices each op and replays it over streams and links; exec/ launches it.
//
// - Ops are listed in host issue order (the order DeepSpeed's Python launches them). An op may
//   depend only on earlier ops, so the graph is acyclic by construction; it runs on one stream,
//   after the op issued before it on that stream (streams are FIFO).
// - The host issues ops one after another without waiting for them, except after an op marked
//   `host_waits`: a synchronize, a `.item()`, or work the host thread does itself (CPU Adam);
//   and before an op with `host_wait_for` >= 0: the host first synchronizes on that earlier op's
//   event (one host-device round trip), as DeepSpeed's stage-3 throttles do before a fetch or a
//   reduction. Such a wait is an attribute of the op it precedes rather than an op of its own:
//   a 70B stage-3 step has thousands.
// - A buffer is allocated when its `alloc_op` is issued and released right after its `free_op`
//   is issued, which is what PyTorch's caching allocator counts in
//   torch.cuda.memory_allocated(). Persistent buffers (model states) live throughout, except
//   one with free_op < alloc_op: it exists across the step boundary but is released after
//   free_op's issue and allocated again at alloc_op's (stage 3's persistent parameters,
//   partitioned at the start of step() and gathered again after it).
// - Segments group ops. A segment with repeat > 1 stands for that many identical micro-steps
//   (DeepSpeed's micro-steps between the first and the last do the same work); it must leave
//   memory as it found it.
// - Every rank of the data-parallel group is symmetric (ZeRO's partitions are equal-sized, the
//   padding included), so one rank describes all; collectives name the group they span.
// - Names and dependency lists live in two arenas (`names`, `dep_ids`) so that building a plan
//   of 10^4 ops costs no allocation per op: a sweep builds thousands of plans.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/units.h"
#include "kernels/collective.h"

namespace zs::plan {

enum class Device { kGpu, kHostPinned, kHostPageable, kNvme };
std::string_view device_name(Device d);

// The breakdown categories of memory reports.
enum class Category { kParams, kGrads, kOptimizerStates, kActivations, kBuffers, kOther };
std::string_view category_name(Category c);

// A name in Plan::names.
struct NameRef {
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
};

// One part of a name: text, or an integer that is written in decimal only when the name is
// built (a sweep's plans carry no names, so their builders never format a number).
class NamePart {
 public:
  NamePart(std::string_view text) : text_(text) {}
  NamePart(const char* text) : text_(text) {}
  NamePart(const std::string& text) : text_(text) {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>)
      NamePart(T number)
      : number_(static_cast<std::int64_t>(number)), is_number_(true) {}

  // Appends the part to `out`.
  void append_to(std::string* out) const;

 private:
  std::string_view text_;
  std::int64_t number_ = 0;
  bool is_number_ = false;
};

// A range of Plan::dep_ids.
struct IdRange {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
};

struct Buffer {
  NameRef name;
  Bytes bytes = 0;
  Device device = Device::kGpu;
  Category category = Category::kBuffers;
  // Its share of model_states_bytes: parameters, gradient storage and optimizer states as the
  // ZeRO paper counts them (2Ψ/N for a stage-2 gradient partition even where DeepSpeed's buffer
  // holds straddling parameters in full); 0 for buckets and transient casts.
  Bytes model_state_bytes = 0;
  bool persistent = false;  // allocated before the step and alive after it
  int alloc_op = -1;        // the op whose issue allocates it (-1: persistent without a gap)
  int free_op = -1;         // the op after whose issue it is released (-1: as alloc_op)
};

// kCpu is the host thread itself: what runs on it (CPU Adam, syncs) blocks the host, so every
// op on it is `host_waits`.
enum class StreamKind { kCompute, kCollective, kCopyH2D, kCopyD2H, kCpu, kNvme };
std::string_view stream_kind_name(StreamKind k);

struct Stream {
  std::string name;
  StreamKind kind = StreamKind::kCompute;
};

enum class Pass : std::uint8_t { kForward, kBackward, kRecompute };
constexpr std::string_view pass_name(Pass p) {
  switch (p) {
    case Pass::kForward:
      return "fwd";
    case Pass::kBackward:
      return "bwd";
    case Pass::kRecompute:
      return "recompute";
  }
  return "?";
}

// Model kernels: the contiguous range [first_model_op, last_model_op] of
// models::forward_ops(spec, workload), run forward, backward, or forward again to recompute.
struct ComputeWork {
  int first_model_op = 0;
  int last_model_op = 0;
  // Activation checkpointing: after this forward (the last of a checkpointed layer) the
  // activations of model ops [drop_first_model_op, last_model_op] are freed but the layer's
  // input, as torch.utils.checkpoint keeps only its inputs; a recompute restores them before
  // the layer's backward. -1: nothing is dropped.
  int drop_first_model_op = -1;
  Pass pass = Pass::kForward;
  // What the op means for a micro-step, stated so an executor need not infer it (forward only):
  bool begins_micro_step = false;  // the first model op's forward: a new micro-batch is read
  bool ends_micro_step = false;    // the loss's forward: its loss counts toward the step's mean
  std::int64_t flops = 0;
  Bytes hbm_bytes = 0;
};
// Kept at 32 bytes, the size of the Plan's largest op payload: every op carries a Work.
static_assert(sizeof(ComputeWork) <= 32);

using CollectiveKind = kernels::Collective;
using kernels::collective_name;

// The element type of a tensor DeepSpeed communicates (the oracle records it per collective).
enum class Dtype : std::uint8_t { kU8, kFp16, kBf16, kFp32, kFp64 };
std::string_view dtype_name(Dtype d);  // "u8", "fp16", "bf16", "fp32", "fp64"
Bytes dtype_size(Dtype d);

// What a collective's values are: what an executor puts into its buffer and takes out.
enum class CollectiveRole : std::uint8_t {
  kOther,  // values no executor reads (none so far)
  // Gradient elements (`slices`), summed over the group and averaged per `average`; each rank
  // then keeps the elements of its partition (plan/partition.h).
  kGradients,
  // Parameter elements (`slices`), gathered in the model dtype from the ranks that own them.
  kParams,
  // One u8 per rank, 1 when its gradient partition holds inf or NaN, combined with MAX
  // (stage_1_and_2.py / stage3.py has_overflow: a ByteTensor all-reduced with ReduceOp.MAX).
  kOverflowFlag,
  // The sum of squares of each rank's gradient partition, summed (get_grad_norm_direct).
  kNormSquares,
  // The norm of every gradient each rank holds, divided by N, summed: fp32 clip_grad_norm_
  // without ZeRO (runtime/utils.py: scaled_norm = total_norm / world, all_reduce).
  kNormMean,
};
std::string_view collective_role_name(CollectiveRole r);

// How a gradient reduction averages over its group of N.
enum class Average : std::uint8_t {
  kNone,
  kDivideBefore,   // each rank's values divided by N before the sum (stage_1_and_2.py
                   // average_tensor; coalesced_collectives.py reduce_scatter_coalesced)
  kMultiplyAfter,  // the sum multiplied by 1/N (engine.py allreduce_bucket,
                   // stage_1_and_2.py gradient_reduction_w_predivide: postscale_gradients)
};

// How `slices` fill a collective's buffer.
enum class SliceLayout : std::uint8_t {
  // Back to back in order, then zeros to the buffer's end (stage 1/2's padded flat group).
  kConcatenated,
  // ZeRO-3's per-parameter partitions: the buffer is N blocks; block c is, for each slice in
  // order, its piece c (elements [c*k, (c+1)*k) of the slice, k = ceil(length / N)), padded
  // with zeros to k (coalesced_collectives.py reduce_scatter_coalesced; partition_parameters.py
  // all-gathers the same way).
  kRankPieces,
};

// A collective over the data-parallel group. `bytes` is the size of the whole buffer the
// collective produces on each rank (the all-reduced bucket; the gathered tensor; the input of a
// reduce-scatter), as nccl-tests states message sizes.
struct CollectiveWork {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Dtype dtype = Dtype::kBf16;
  CollectiveRole role = CollectiveRole::kOther;
  Average average = Average::kNone;
  SliceLayout layout = SliceLayout::kConcatenated;
  Bytes bytes = 0;
  int group_size = 1;
  int root = 0;  // the rank a reduce delivers to (kReduce only)
  // The model elements a gradient reduction or parameter gather carries, laid out in its buffer
  // per `layout` (a range of Plan::param_slices): what an executor packs and unpacks. Stated
  // when the plan keeps names (PlanRequest::names; a sweep's plans leave them empty, as their
  // names); empty for scalars (flags, norms).
  IdRange slices{};
};

static_assert(sizeof(CollectiveWork) <= 32);

// Elements [begin, end) of model parameter `param` (a models::ParamTensor id of the layout's
// graph), flattened.
struct ParamSlice {
  int param = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// GPU memory-bound work that is not a model kernel: flatten, cast, copy, zero fill, norm.
struct MemoryWork {
  Bytes bytes_read = 0;
  Bytes bytes_written = 0;
};

// What a copy between host and GPU carries, for an executor that moves it (CPU offload).
enum class CopyRole : std::uint8_t {
  kOther,  // values no executor moves yet (offloaded parameters, NVMe staging)
  // This rank's partition's elements among `slices` (plan/partition.h): device to host, they
  // are added into the host's gradients and leave the device's reduced gradients (DeepSpeed
  // copies or accumulates them into the fp32 partition's .grad on the host); host to device,
  // the host's go back to be added to the device's (stage 3 and stage 2's accumulation
  // steps bring the host partition up before the next reduction adds to it).
  kGradients,
  // The parameters OptimizerWork op `source_op` just updated on the host, rounded to the model
  // dtype, into the device's 16-bit partition (stage_1_and_2.py step; stage3.py
  // _reassign_or_swap_out_partitioned_parameters).
  kParams,
};

// A copy between host and GPU over PCIe.
struct CopyWork {
  Bytes bytes = 0;
  bool host_to_device = true;
  bool pinned = true;
  CopyRole role = CopyRole::kOther;
  int source_op = -1;  // kParams: the OptimizerWork op whose update it carries
  IdRange slices{};    // kGradients: the gradients (Plan::param_slices), when names are kept
};
static_assert(sizeof(CopyWork) <= 32);

// The optimizer step over `numel` parameters, on the GPU (fused Adam) or the CPU (DeepSpeed's
// CPU Adam). `bytes_touched` is the memory traffic it makes.
struct OptimizerWork {
  bool on_cpu = false;
  std::int64_t numel = 0;
  Bytes bytes_touched = 0;
  // Where the slice starts in this rank's flat fp32 master weights (its ZeRO partition, or the
  // whole model at stage 0): sub-groups and partitions follow each other from 0. A stage 1/2
  // partition is padded to a multiple of the world size, so the last slice may run past the
  // model's parameters; the padding has no weights.
  std::int64_t first_elem = 0;
};

struct NvmeWork {
  Bytes bytes = 0;
  bool read = true;
};

// The host waiting for the GPU: torch.cuda.synchronize(), event.synchronize(), or `.item()`
// of a device scalar. It does no work itself: it finishes when its dependencies have. `rounds`
// counts the host-device round trips it stands for (a loop of per-parameter `.item()` calls is
// one op with rounds = the number of parameters). A sync op runs on the host stream and is
// always `host_waits`.
struct SyncWork {
  int rounds = 1;
};

using Work = std::variant<ComputeWork, CollectiveWork, MemoryWork, CopyWork, OptimizerWork,
                          NvmeWork, SyncWork>;

// Where an op sits in the step, for reports ("the peak is in backward").
enum class Phase { kForward, kBackward, kReduce, kStep, kPostStep };
std::string_view phase_name(Phase p);

// The step-level decisions DeepSpeed's optimizer step makes, each at the op where its code makes
// it, so that an executor runs them there (exec/plan_interpreter.h) instead of guessing.
enum class StepRole : std::uint8_t {
  kNone,
  // The overflow is known here (the flag's .item(), or FP16_Optimizer's per-parameter sums):
  // fp16's loss scaler updates, and an overflow skips every later op marked
  // skipped_on_overflow. At most one per step, before every op marked so.
  kOverflowDecision,
  // The global gradient norm is known here (its .item(), or the all-reduce of fp32 clipping
  // without ZeRO). At most one per step, before the kUnscaleClip op.
  kGradNorm,
  // The gradients are unscaled and clipped by the norm here, before this op's own work
  // (stage_1_and_2.py / stage3.py unscale_and_clip_grads before the inner optimizer;
  // engine.py clip_fp32_gradients; FP16_Optimizer's step). Exactly one per step of a Plan
  // with an OptimizerWork, before the first of them.
  kUnscaleClip,
};
inline constexpr int kStepRoleCount = static_cast<int>(StepRole::kUnscaleClip) + 1;
std::string_view step_role_name(StepRole r);

// Framework (Python) work the host does before it can issue an op, besides the op's own
// launches: DeepSpeed's engine entry points, hooks and step loops, in calls of each kind. The
// plan says how many calls DeepSpeed's code makes where; plan/host_ops.h says what ATen calls
// each kind makes (measured on real DeepSpeed 0.19.6), and the simulator prices a call's Python
// (sim/cost_profile.h host_call_s) and its ATen calls. Counts per op, summed over what runs
// before its issue. "Per parameter" means per parameter tensor.
enum class HostTask : std::uint8_t {
  kEngineForward,   // DeepSpeedEngine.forward around the model's: once per micro-step
  kEngineBackward,  // DeepSpeedEngine.backward around loss.backward(): once per micro-step
  kEngineStep,      // DeepSpeedEngine.step's own bookkeeping: once per optimizer step
  // autograd's AccumulateGrad of one parameter into a .grad that holds the earlier micro-steps'
  // sum (stages 0 and 1 after the first micro-step): an add, where the first micro-step's (and
  // stage 2/3's, whose hooks take the gradient away) only keeps the tensor
  kAccumulateGrad,
  // Stage 0 (engine.py allreduce_gradients -> buffered_allreduce_fallback), at the boundary,
  // with one rank too: per parameter (gathered, flattened, copied back) and per bucket
  kStage0ReduceParam,
  kStage0ReduceBucket,
  // FP16_UnfusedOptimizer's step (stage 0, 16-bit, a client optimizer): per parameter (the
  // overflow test, norm, cast, unscale and copy back) and its constant part
  kStage0StepParam,
  kStage0StepBody,
  kGradHook,  // ZeRO 1/2's per-parameter gradient hook, every micro-step (grad_handling_hook)
  // ZeRO 1/2's reduction of one parameter (reduce_independent_p_g_buckets_and_remove_grads):
  // copied into the IPG bucket, or alone when larger than the bucket
  kGradReduce,
  kGradReduceLarge,
  kBucketFlush,         // ZeRO 1/2: one IPG bucket reduced (reduce_ipg_grads, average_tensor)
  kBucketFlushOverlap,  // the same with overlap_comm (its stream waits)
  // ZeRO 1/2, the ATen calls of a bucket's reduction that scale with its parts (their Python is
  // the flush's): one slice of a gradient cut at the partition boundaries (consecutive slices of
  // one owner merged); one kernel per slice this rank owns (its copy back) and per all_reduce
  // of several slices (their flatten); one record_stream with overlap_comm
  kFlushSlice,
  kFlushKernel,
  kFlushStreamRecord,
  kIpgBuffer,            // ZeRO 1/2: one IPG buffer allocated at a backward's first gradient hook
  kPartitionBuffer,      // ZeRO 2: grads_in_partition allocated at a backward's first copy into it
  kPartitionCopy,        // ZeRO 1/2: one parameter of this rank's partition taken from a bucket
  kPartitionAccumulate,  // ZeRO 2: ... added to the partition's earlier micro-steps' gradients
  // ZeRO 1/2 with the optimizer offloaded: one parameter of the partition at the boundary (its
  // norm and inf/NaN test on the GPU, the fp32 cast and the copy to the host), and in step() its
  // norm's .item()
  kOffloadGrad,
  kOffloadStepParam,
  // ZeRO 2 offloaded, after the first micro-step: one parameter of the partition accumulated on
  // the host through the GPU (async_accumulate_grad_in_cpu_via_gpu: up, add, down; the first
  // micro-step's only goes down, as kPartitionCopy)
  kOffloadAccumulate,
  kZeroStepParam,        // ZeRO 1/2's step per parameter (_update_model_bit16_weights)
  kZeroStepGrad,         // ZeRO 1/2's step per gradient of the partition (overflow test, norm)
  kZeroStepBody,         // ZeRO 1/2's step, its constant part (the optimizer's call included)
  kOffloadStepBody,      // the same with the optimizer offloaded (DeepSpeedCPUAdam's call)
  kStage3GradHook,       // ZeRO 3's per-parameter gradient hook (reduce_partition_and_remove_grads)
  kStage3BucketFlush,    // ZeRO 3: one IPG bucket reduce-scattered and partitioned
  kModuleVisit,          // ZeRO 3's hooks on one module run in forward: the pre hook
                         // (fetch_sub_module with its prefetch bookkeeping), the post hook
                         // (release_sub_module) and the autograd functions they wrap the module's
                         // inputs and outputs in, for every nn.Module, parameter-free ones included
  kModuleVisitBackward,  // the same in backward (the functions' backward)
  kGather,               // one coalesced parameter all-gather launched by a fetch
  kGatherParam,          // one parameter of a gather, when its handle is waited for
  // a gather of one parameter (all_gather_coalesced's _all_gather_sequential: straight into the
  // parameter, no flat buffer to copy out of when waited for)
  kGatherSingle,
  kStage3StepParam,  // ZeRO 3's step per parameter (norm, fp32 gradient, unflatten)
  kStage3StepBody,   // ZeRO 3's step, its constant part
  // ZeRO 3 with the optimizer offloaded: one parameter's gradient at the boundary (its norm,
  // the fp32 copy to the host), and the step's parts
  kStage3OffloadGrad,
  kStage3OffloadStepParam,
  kStage3OffloadStepBody,
  kCount,
};
inline constexpr int kHostTaskCount = static_cast<int>(HostTask::kCount);
// Whether a table of rows with a `task` member lists every HostTask once, in the enum's order
// (rows[i].task is task i), so that a task indexes its row: for static_assert.
template <typename Row, std::size_t N>
constexpr bool lists_every_host_task(const Row (&rows)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (static_cast<std::size_t>(rows[i].task) != i) return false;
  }
  return N == static_cast<std::size_t>(kHostTaskCount);
}
std::string_view host_task_name(HostTask t);

// One kind of call and how many, in 4 bytes (a count past 2^24 is a plan/ bug: HostCalls::add).
struct HostCall {
  HostTask task : 8 = HostTask::kCount;
  std::uint32_t count : 24 = 0;
};
static_assert(sizeof(HostCall) == 4);

// An op's host calls: a few kinds each (an op sits where at most ten kinds of DeepSpeed's work
// run before it: a ZeRO-1/2 bucket's flush), kept inline so that a plan of 10^4 ops allocates
// nothing per op.
class HostCalls {
 public:
  static constexpr int kSlots = 10;
  // Adds `n` calls of `task`. REQUIRES: n >= 0; a slot for it (a plan/ bug otherwise).
  void add(HostTask task, int n);
  int operator[](HostTask task) const;
  bool empty() const { return used_ == 0; }
  std::span<const HostCall> calls() const { return {slots_.data(), used_}; }

 private:
  std::array<HostCall, kSlots> slots_{};
  std::uint8_t used_ = 0;
};

struct Op {
  NameRef name;  // unique and stable, e.g. "mb0.fwd.layers.3.mlp", "step.optimizer"
  int stream = 0;
  Phase phase = Phase::kForward;
  Work work;
  IdRange deps;               // ids of earlier ops that must finish first (Plan::deps)
  Bytes transient_bytes = 0;  // GPU working memory while it runs (activation gradients, temps)
  int host_wait_for = -1;     // an earlier op the host synchronizes on before issuing this one
  HostCalls host_calls;       // framework calls the host makes before issuing it
  bool host_waits = false;    // the host blocks until it has finished
  bool skipped_on_overflow = false;  // not run when the fp16 loss scaler finds an overflow
  StepRole step_role = StepRole::kNone;
};

struct Segment {
  std::string name;  // "micro_step.0", "micro_step.1-6", "step"
  int first_op = 0;  // [first_op, end_op)
  int end_op = 0;
  int repeat = 1;
};

struct Plan {
  std::string summary;  // one line: model, stage, world, batch
  int world_size = 1;
  int micro_steps = 1;
  std::vector<Stream> streams;
  std::vector<Buffer> buffers;
  std::vector<Op> ops;
  std::vector<Segment> segments;
  std::string names;                     // the text NameRefs point into
  std::vector<int> dep_ids;              // the ids IdRanges point into
  std::vector<ParamSlice> param_slices;  // what CollectiveWork::slices point into

  // Appends the concatenation of `parts` to `names`.
  NameRef add_name(std::initializer_list<NamePart> parts);
  std::string_view name(NameRef r) const { return {names.data() + r.begin, r.size}; }
  std::string_view op_name(int op) const { return name(ops[op].name); }
  std::string_view buffer_name(int buffer) const { return name(buffers[buffer].name); }
  std::span<const int> deps(const Op& op) const {
    return {dep_ids.data() + op.deps.begin, op.deps.end - op.deps.begin};
  }

  int add_stream(std::string name, StreamKind kind);
  int add_buffer(Buffer b);
  int add_op(Op op, std::span<const int> deps);  // returns its id; op.deps is set here
  // Appends `s` to param_slices; returns its range (a CollectiveWork::slices).
  IdRange add_slices(std::span<const ParamSlice> s);
  std::span<const ParamSlice> slices(IdRange r) const {
    return {param_slices.data() + r.begin, r.end - r.begin};
  }
  std::span<const ParamSlice> slices(const CollectiveWork& w) const { return slices(w.slices); }
  std::span<const ParamSlice> slices(const CopyWork& w) const { return slices(w.slices); }
  // Appends a default Op with these deps and returns it, for the caller to fill in place.
  Op& append_op(std::span<const int> deps);
  // The id of the op named `name`, or -1. Linear: for tests and tools.
  int find_op(std::string_view name) const;
};

// True when buffer `b` is allocated while op `op` runs (-1: before the step, persistent state
// only): from its alloc_op's issue through its free_op's, or, persistent, always but in its gap.
bool live_during(const Buffer& b, int op);

// Which buffers each op allocates and frees, in buffer id order: the inverse of
// Buffer::alloc_op / free_op.
struct BufferEvents {
  std::vector<int> alloc_begin;  // ops + 1 offsets into alloc_ids
  std::vector<int> alloc_ids;
  std::vector<int> free_begin;
  std::vector<int> free_ids;

  std::span<const int> allocs(int op) const {
    return {alloc_ids.data() + alloc_begin[op],
            static_cast<std::size_t>(alloc_begin[op + 1] - alloc_begin[op])};
  }
  std::span<const int> frees(int op) const {
    return {free_ids.data() + free_begin[op],
            static_cast<std::size_t>(free_begin[op + 1] - free_begin[op])};
  }
};
// REQUIRES: every buffer's alloc_op and free_op is -1 or an op id.
BufferEvents buffer_events(const Plan& plan);

// OK when the plan is well formed: every op's stream exists; deps name earlier ops; ops on the
// host thread (kCpu) are host_waits and sync ops run there; every
// non-persistent buffer is allocated by an op and freed by the same or a later one; a persistent
// buffer is allocated and freed by no op, or has a gap (freed by an op, allocated again by a
// later one); segments tile the op list in order; a repeated segment frees what it allocates;
// each StepRole is on at most one op, the overflow decision before every op skipped on overflow,
// and the unscale-and-clip after the decision and the norm, at or before the first
// OptimizerWork (which needs one).
// Otherwise kInvalidArgument naming the op or buffer (a plan/ bug, reported as a Status so tests
// can show it).
Status validate(const Plan& plan);

// What an op does, in words: "all_gather 1048576 bytes over 8 ranks".
std::string describe_work(const Work& w);

// One line per op: "id [stream] phase name: work deps allocs frees", then the buffers, for
// tests and debugging. Deterministic.
std::string to_text(const Plan& plan);

}  // namespace zs::plan
