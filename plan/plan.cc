#include "plan/plan.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>
#include <variant>

#include "common/check.h"
#include "common/overloaded.h"
#include "common/units.h"

namespace zs::plan {

std::string_view device_name(Device d) {
  switch (d) {
    case Device::kGpu:
      return "gpu";
    case Device::kHostPinned:
      return "host_pinned";
    case Device::kHostPageable:
      return "host";
    case Device::kNvme:
      return "nvme";
  }
  return "?";
}

std::string_view category_name(Category c) {
  switch (c) {
    case Category::kParams:
      return "params";
    case Category::kGrads:
      return "grads";
    case Category::kOptimizerStates:
      return "optimizer_states";
    case Category::kActivations:
      return "activations";
    case Category::kBuffers:
      return "buffers";
    case Category::kOther:
      return "other";
  }
  return "?";
}

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kU8:
      return "u8";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp32:
      return "fp32";
    case Dtype::kFp64:
      return "fp64";
  }
  return "?";
}

std::string_view collective_role_name(CollectiveRole r) {
  switch (r) {
    case CollectiveRole::kOther:
      return "other";
    case CollectiveRole::kGradients:
      return "gradients";
    case CollectiveRole::kParams:
      return "params";
    case CollectiveRole::kOverflowFlag:
      return "overflow_flag";
    case CollectiveRole::kNormSquares:
      return "norm_squares";
    case CollectiveRole::kNormMean:
      return "norm_mean";
  }
  return "?";
}

Bytes dtype_size(Dtype d) {
  switch (d) {
    case Dtype::kU8:
      return 1;
    case Dtype::kFp16:
    case Dtype::kBf16:
      return 2;
    case Dtype::kFp32:
      return 4;
    case Dtype::kFp64:
      return 8;
  }
  return 0;
}

std::string_view stream_kind_name(StreamKind k) {
  switch (k) {
    case StreamKind::kCompute:
      return "compute";
    case StreamKind::kCollective:
      return "collective";
    case StreamKind::kCopyH2D:
      return "h2d";
    case StreamKind::kCopyD2H:
      return "d2h";
    case StreamKind::kCpu:
      return "cpu";
    case StreamKind::kNvme:
      return "nvme";
  }
  return "?";
}

namespace {

struct HostTaskName {
  HostTask task;
  std::string_view name;
};
// clang-format off
constexpr HostTaskName kHostTaskNames[] = {
    {HostTask::kEngineForward, "engine.forward"},
    {HostTask::kEngineBackward, "engine.backward"},
    {HostTask::kEngineStep, "engine.step"},
    {HostTask::kAccumulateGrad, "autograd.accumulate_grad"},
    {HostTask::kStage0ReduceParam, "stage0.reduce_param"},
    {HostTask::kStage0ReduceBucket, "stage0.reduce_bucket"},
    {HostTask::kStage0StepParam, "stage0.step_param"},
    {HostTask::kStage0StepBody, "stage0.step_body"},
    {HostTask::kGradHook, "zero12.grad_hook"},
    {HostTask::kGradReduce, "zero12.grad_reduce"},
    {HostTask::kGradReduceLarge, "zero12.grad_reduce_large"},
    {HostTask::kBucketFlush, "zero12.bucket_flush"},
    {HostTask::kBucketFlushOverlap, "zero12.bucket_flush_overlap"},
    {HostTask::kFlushSlice, "zero12.flush_slice"},
    {HostTask::kFlushKernel, "zero12.flush_kernel"},
    {HostTask::kFlushStreamRecord, "zero12.flush_record_stream"},
    {HostTask::kIpgBuffer, "zero12.ipg_buffer"},
    {HostTask::kPartitionBuffer, "zero12.partition_buffer"},
    {HostTask::kPartitionCopy, "zero12.partition_copy"},
    {HostTask::kPartitionAccumulate, "zero12.partition_accumulate"},
    {HostTask::kOffloadGrad, "zero12.offload_grad"},
    {HostTask::kOffloadStepParam, "zero12.offload_step_param"},
    {HostTask::kOffloadAccumulate, "zero12.offload_accumulate"},
    {HostTask::kZeroStepParam, "zero12.step_param"},
    {HostTask::kZeroStepGrad, "zero12.step_grad"},
    {HostTask::kZeroStepBody, "zero12.step_body"},
    {HostTask::kOffloadStepBody, "zero12.offload_step_body"},
    {HostTask::kStage3GradHook, "zero3.grad_hook"},
    {HostTask::kStage3BucketFlush, "zero3.bucket_flush"},
    {HostTask::kModuleVisit, "zero3.module_hooks"},
    {HostTask::kModuleVisitBackward, "zero3.module_hooks_backward"},
    {HostTask::kGather, "zero3.gather_launch"},
    {HostTask::kGatherParam, "zero3.gather_param"},
    {HostTask::kGatherSingle, "zero3.gather_single"},
    {HostTask::kStage3StepParam, "zero3.step_param"},
    {HostTask::kStage3StepBody, "zero3.step_body"},
    {HostTask::kStage3OffloadGrad, "zero3.offload_grad"},
    {HostTask::kStage3OffloadStepParam, "zero3.offload_step_param"},
    {HostTask::kStage3OffloadStepBody, "zero3.offload_step_body"},
};
// clang-format on

static_assert(lists_every_host_task(kHostTaskNames),
              "kHostTaskNames lists every HostTask in its order");

}  // namespace

std::string_view host_task_name(HostTask t) {
  const auto i = static_cast<std::size_t>(t);
  return i < std::size(kHostTaskNames) ? kHostTaskNames[i].name : "?";
}

void HostCalls::add(HostTask task, int n) {
  constexpr std::uint32_t kMaxCount = (1u << 24) - 1;
  ZS_CHECK(n >= 0 && task != HostTask::kCount);
  if (n == 0) return;
  for (std::size_t i = 0; i < used_; ++i) {
    if (slots_[i].task == task) {
      ZS_CHECK(slots_[i].count + static_cast<std::uint32_t>(n) <= kMaxCount);
      slots_[i].count += static_cast<std::uint32_t>(n);
      return;
    }
  }
  ZS_CHECK_MSG(used_ < kSlots, "more kinds of host calls before one op than HostCalls holds");
  ZS_CHECK(static_cast<std::uint32_t>(n) <= kMaxCount);
  slots_[used_].task = task;
  slots_[used_].count = static_cast<std::uint32_t>(n);
  ++used_;
}

int HostCalls::operator[](HostTask task) const {
  for (const HostCall& c : calls()) {
    if (c.task == task) return static_cast<int>(c.count);
  }
  return 0;
}

std::string_view step_role_name(StepRole r) {
  switch (r) {
    case StepRole::kNone:
      return "none";
    case StepRole::kOverflowDecision:
      return "overflow_decision";
    case StepRole::kGradNorm:
      return "grad_norm";
    case StepRole::kUnscaleClip:
      return "unscale_clip";
  }
  return "?";
}

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kReduce:
      return "gradient reduction";
    case Phase::kStep:
      return "optimizer step";
    case Phase::kPostStep:
      return "parameter all-gather";
  }
  return "?";
}

void NamePart::append_to(std::string* out) const {
  if (!is_number_) {
    out->append(text_);
    return;
  }
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, number_);
  out->append(digits, r.ptr);
}

NameRef Plan::add_name(std::initializer_list<NamePart> parts) {
  const auto begin = static_cast<std::uint32_t>(names.size());
  for (const NamePart& p : parts) p.append_to(&names);
  return NameRef{begin, static_cast<std::uint32_t>(names.size() - begin)};
}

int Plan::add_stream(std::string name, StreamKind kind) {
  streams.push_back(Stream{std::move(name), kind});
  return static_cast<int>(streams.size()) - 1;
}

int Plan::add_buffer(Buffer b) {
  buffers.push_back(b);
  return static_cast<int>(buffers.size()) - 1;
}

IdRange Plan::add_slices(std::span<const ParamSlice> s) {
  IdRange r;
  r.begin = static_cast<std::uint32_t>(param_slices.size());
  param_slices.insert(param_slices.end(), s.begin(), s.end());
  r.end = static_cast<std::uint32_t>(param_slices.size());
  return r;
}

int Plan::add_op(Op op, std::span<const int> deps) {
  Op& o = append_op(deps);
  const IdRange range = o.deps;
  o = std::move(op);
  o.deps = range;
  return static_cast<int>(ops.size()) - 1;
}

Op& Plan::append_op(std::span<const int> deps) {
  Op& o = ops.emplace_back();
  o.deps.begin = static_cast<std::uint32_t>(dep_ids.size());
  dep_ids.insert(dep_ids.end(), deps.begin(), deps.end());
  o.deps.end = static_cast<std::uint32_t>(dep_ids.size());
  return o;
}

int Plan::find_op(std::string_view wanted) const {
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (op_name(i) == wanted) return i;
  }
  return -1;
}

bool live_during(const Buffer& b, int op) {
  if (b.persistent) return b.alloc_op < 0 || !(b.free_op < op && op < b.alloc_op);
  return op >= 0 && b.alloc_op <= op && op <= b.free_op;
}

BufferEvents buffer_events(const Plan& plan) {
  const int n = static_cast<int>(plan.ops.size());
  BufferEvents e;
  e.alloc_begin.assign(n + 1, 0);
  e.free_begin.assign(n + 1, 0);
  for (const Buffer& b : plan.buffers) {
    if (b.alloc_op >= 0) ++e.alloc_begin[b.alloc_op + 1];
    if (b.free_op >= 0) ++e.free_begin[b.free_op + 1];
  }
  for (int i = 0; i < n; ++i) {
    e.alloc_begin[i + 1] += e.alloc_begin[i];
    e.free_begin[i + 1] += e.free_begin[i];
  }
  e.alloc_ids.resize(e.alloc_begin[n]);
  e.free_ids.resize(e.free_begin[n]);
  std::vector<int> a(e.alloc_begin.begin(), e.alloc_begin.end() - 1);
  std::vector<int> f(e.free_begin.begin(), e.free_begin.end() - 1);
  for (int id = 0; id < static_cast<int>(plan.buffers.size()); ++id) {
    const Buffer& b = plan.buffers[id];
    if (b.alloc_op >= 0) e.alloc_ids[a[b.alloc_op]++] = id;
    if (b.free_op >= 0) e.free_ids[f[b.free_op]++] = id;
  }
  return e;
}

namespace {

Status bad(const std::string& what) { return Status::invalid_argument("invalid plan: " + what); }

}  // namespace

std::string describe_work(const Work& w) {
  char buf[160];
  std::visit(Overloaded{
                 [&](const ComputeWork& c) {
                   std::snprintf(buf, sizeof buf, "compute %s ops %d-%d flops %lld bytes %lld",
                                 std::string(pass_name(c.pass)).c_str(), c.first_model_op,
                                 c.last_model_op, static_cast<long long>(c.flops),
                                 static_cast<long long>(c.hbm_bytes));
                 },
                 [&](const CollectiveWork& k) {
                   std::snprintf(buf, sizeof buf, "%s %lld bytes %s over %d ranks",
                                 std::string(collective_name(k.kind)).c_str(),
                                 static_cast<long long>(k.bytes),
                                 std::string(dtype_name(k.dtype)).c_str(), k.group_size);
                 },
                 [&](const MemoryWork& m) {
                   std::snprintf(buf, sizeof buf, "memory read %lld write %lld",
                                 static_cast<long long>(m.bytes_read),
                                 static_cast<long long>(m.bytes_written));
                 },
                 [&](const CopyWork& p) {
                   std::snprintf(buf, sizeof buf, "copy %s %lld bytes %s",
                                 p.host_to_device ? "h2d" : "d2h", static_cast<long long>(p.bytes),
                                 p.pinned ? "pinned" : "pageable");
                 },
                 [&](const OptimizerWork& o) {
                   std::snprintf(buf, sizeof buf, "optimizer %s numel %lld bytes %lld",
                                 o.on_cpu ? "cpu" : "gpu", static_cast<long long>(o.numel),
                                 static_cast<long long>(o.bytes_touched));
                 },
                 [&](const NvmeWork& n) {
                   std::snprintf(buf, sizeof buf, "nvme %s %lld bytes", n.read ? "read" : "write",
                                 static_cast<long long>(n.bytes));
                 },
                 [&](const SyncWork& y) { std::snprintf(buf, sizeof buf, "sync x%d", y.rounds); },
             },
             w);
  return buf;
}

namespace {

std::string ids(std::span<const int> v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : ",") + std::to_string(i);
  return out.empty() ? "-" : out;
}

std::string op_where(const Plan& plan, int i) {
  return "op " + std::to_string(i) + " \"" + std::string(plan.op_name(i)) + "\"";
}

// What is wrong with an op, as data: the per-op checks run for every op of a sweep's every
// plan, so they make no string; describe() writes the message of the one that fails.
enum class OpIssue : std::uint8_t {
  kNone,
  kStream,         // value: the stream
  kDepRange,       //
  kDep,            // value: the dependency
  kHostWait,       //
  kHostNotWaited,  //
  kSyncOnDevice,   //
  kMarks,          // micro-step marks on a pass other than forward
  kDrop,           // a drop past the last model op
  kSliceRange,     //
  kSlice,          // value: the parameter of an empty or negative slice
  kMasterSlice,    //
};
struct OpCheck {
  OpIssue issue = OpIssue::kNone;
  std::int64_t value = 0;
};

// Op op's work: micro-step marks on forward ops only, within its model ops; collective slices in
// range and not empty; an optimizer's slice not negative.
OpCheck check_work(const Plan& plan, const Op& op) {
  if (const auto* c = std::get_if<ComputeWork>(&op.work)) {
    const bool forward = c->pass == Pass::kForward;
    if ((c->begins_micro_step || c->ends_micro_step || c->drop_first_model_op >= 0) && !forward) {
      return {OpIssue::kMarks};
    }
    if (c->drop_first_model_op < -1 || c->drop_first_model_op > c->last_model_op) {
      return {OpIssue::kDrop};
    }
  }
  if (const auto* k = std::get_if<CollectiveWork>(&op.work)) {
    if (k->slices.begin > k->slices.end || k->slices.end > plan.param_slices.size()) {
      return {OpIssue::kSliceRange};
    }
    for (const ParamSlice& sl : plan.slices(*k)) {
      if (sl.param < 0 || sl.begin < 0 || sl.end <= sl.begin) return {OpIssue::kSlice, sl.param};
    }
  }
  if (const auto* o = std::get_if<OptimizerWork>(&op.work)) {
    if (o->first_elem < 0 || o->numel < 0) return {OpIssue::kMasterSlice};
  }
  return {};
}

// Op i's place: a known stream, dependencies and host waits on earlier ops, the host thread's
// ops waited for, host syncs on the host; then its work.
OpCheck check_op(const Plan& plan, int i, const std::vector<char>& host_stream) {
  const Op& op = plan.ops[i];
  if (op.stream < 0 || op.stream >= static_cast<int>(host_stream.size())) {
    return {OpIssue::kStream, op.stream};
  }
  if (op.deps.begin > op.deps.end || op.deps.end > plan.dep_ids.size()) {
    return {OpIssue::kDepRange};
  }
  for (std::uint32_t k = op.deps.begin; k < op.deps.end; ++k) {
    const int d = plan.dep_ids[k];
    if (d < 0 || d >= i) return {OpIssue::kDep, d};
  }
  if (op.host_wait_for < -1 || op.host_wait_for >= i) return {OpIssue::kHostWait};
  const bool on_host = host_stream[op.stream];
  if (on_host && !op.host_waits) return {OpIssue::kHostNotWaited};
  if (!on_host && std::holds_alternative<SyncWork>(op.work)) return {OpIssue::kSyncOnDevice};
  return check_work(plan, op);
}

// The message of op i's issue `c`.
Status describe(const Plan& plan, int i, OpCheck c) {
  const Op& op = plan.ops[i];
  const std::string where = op_where(plan, i);
  const auto* compute = std::get_if<ComputeWork>(&op.work);
  switch (c.issue) {
    case OpIssue::kNone:
      break;
    case OpIssue::kStream:
      return bad(where + " runs on unknown stream " + std::to_string(c.value));
    case OpIssue::kDepRange:
      return bad(where + " has a broken dependency range");
    case OpIssue::kDep:
      return bad(where + " depends on op " + std::to_string(c.value));
    case OpIssue::kHostWait:
      return bad(where + " makes the host wait for op " + std::to_string(op.host_wait_for));
    case OpIssue::kHostNotWaited:
      return bad(where + " runs on the host thread but the host does not wait for it");
    case OpIssue::kSyncOnDevice:
      return bad(where + " is a host sync on a device stream");
    case OpIssue::kMarks:
      return bad(where + " marks micro-step structure on a " +
                 std::string(pass_name(compute->pass)) + " pass");
    case OpIssue::kDrop:
      return bad(where + " drops from model op " + std::to_string(compute->drop_first_model_op) +
                 ", past its last " + std::to_string(compute->last_model_op));
    case OpIssue::kSliceRange:
      return bad(where + " has a broken slice range");
    case OpIssue::kSlice:
      return bad(where + " carries an empty or negative slice of parameter " +
                 std::to_string(c.value));
    case OpIssue::kMasterSlice:
      return bad(where + " updates a negative slice of the master weights");
  }
  return Status::ok();
}

// Where each step role is (plan.h StepRole), the first op skipped on overflow and the first
// OptimizerWork; -1: none.
struct StepMarks {
  StepMarks() { role_op.fill(-1); }
  std::array<int, kStepRoleCount> role_op;
  int first_skipped = -1, first_optimizer = -1;
  int at(StepRole r) const { return role_op[static_cast<std::size_t>(r)]; }
};

// The step's order: the overflow decision before what it skips, the unscale-and-clip before
// the first update and after the decision and the norm.
Status check_step_order(const Plan& plan, const StepMarks& m) {
  const int decision = m.at(StepRole::kOverflowDecision);
  const int norm = m.at(StepRole::kGradNorm);
  const int clip = m.at(StepRole::kUnscaleClip);
  if (m.first_skipped >= 0 && (decision < 0 || decision >= m.first_skipped)) {
    return bad(op_where(plan, m.first_skipped) +
               " is skipped on overflow before the overflow decision");
  }
  if (m.first_optimizer >= 0 && (clip < 0 || clip > m.first_optimizer)) {
    return bad(op_where(plan, m.first_optimizer) + " updates before the unscale-and-clip");
  }
  if (clip >= 0 && ((norm >= 0 && norm >= clip) || (decision >= 0 && decision >= clip))) {
    return bad(op_where(plan, clip) +
               " unscales and clips before the overflow decision or the norm");
  }
  return Status::ok();
}

// Every op in place, each step role once; `marks` where the step's roles are.
Status check_ops(const Plan& plan, StepMarks* marks) {
  const int n_ops = static_cast<int>(plan.ops.size());
  const int n_streams = static_cast<int>(plan.streams.size());
  std::vector<char> host_stream(static_cast<std::size_t>(n_streams));
  for (int s = 0; s < n_streams; ++s) host_stream[s] = plan.streams[s].kind == StreamKind::kCpu;
  StepMarks m;  // a local, stored at the end: the loop keeps it in registers
  for (int i = 0; i < n_ops; ++i) {
    const Op& op = plan.ops[i];
    if (op.step_role != StepRole::kNone) {
      int& at = m.role_op[static_cast<std::size_t>(op.step_role)];
      if (at >= 0) {
        return bad(op_where(plan, i) + " is a second " + std::string(step_role_name(op.step_role)) +
                   " of the step, after " + op_where(plan, at));
      }
      at = i;
    }
    if (op.skipped_on_overflow && m.first_skipped < 0) m.first_skipped = i;
    if (std::holds_alternative<OptimizerWork>(op.work) && m.first_optimizer < 0) {
      m.first_optimizer = i;
    }
    if (const OpCheck c = check_op(plan, i, host_stream); c.issue != OpIssue::kNone) {
      return describe(plan, i, c);
    }
  }
  *marks = m;
  return Status::ok();
}

// A persistent buffer is allocated and freed by no op, or only around a gap; any other is
// allocated, then freed, by ops of the plan.
Status check_buffers(const Plan& plan) {
  const int n_ops = static_cast<int>(plan.ops.size());
  for (int b = 0; b < static_cast<int>(plan.buffers.size()); ++b) {
    const Buffer& buf = plan.buffers[b];
    auto where = [&] { return "buffer \"" + std::string(plan.buffer_name(b)) + "\""; };
    if (buf.persistent) {
      const bool no_gap = buf.alloc_op < 0 && buf.free_op < 0;
      const bool gap = buf.free_op >= 0 && buf.free_op < buf.alloc_op && buf.alloc_op < n_ops;
      if (!no_gap && !gap) {
        return bad(where() + " is persistent but allocated or freed by an op outside a gap");
      }
      continue;
    }
    if (buf.alloc_op < 0 || buf.alloc_op >= n_ops) return bad(where() + " is never allocated");
    if (buf.free_op < 0 || buf.free_op >= n_ops) return bad(where() + " is never freed");
    if (buf.free_op < buf.alloc_op) return bad(where() + " is freed before it is allocated");
  }
  return Status::ok();
}

// The segments cover the ops in order, and a repeated one frees what it allocates.
Status check_segments(const Plan& plan) {
  int next = 0;
  for (const Segment& s : plan.segments) {
    if (s.first_op != next || s.end_op < s.first_op || s.repeat < 1) {
      return bad("segment \"" + s.name + "\" does not continue the op list");
    }
    next = s.end_op;
    if (s.repeat == 1) continue;
    for (int b = 0; b < static_cast<int>(plan.buffers.size()); ++b) {
      const Buffer& buf = plan.buffers[b];
      if (buf.persistent && buf.alloc_op < 0) continue;
      const bool in_a = buf.alloc_op >= s.first_op && buf.alloc_op < s.end_op;
      const bool in_f = buf.free_op >= s.first_op && buf.free_op < s.end_op;
      if (in_a != in_f) {
        return bad("repeated segment \"" + s.name + "\" does not free \"" +
                   std::string(plan.buffer_name(b)) + "\" that it allocates, or the reverse");
      }
    }
  }
  if (next != static_cast<int>(plan.ops.size())) return bad("segments do not cover every op");
  return Status::ok();
}

}  // namespace

Status validate(const Plan& plan) {
  StepMarks marks;
  ZS_RETURN_IF_ERROR(check_ops(plan, &marks));
  ZS_RETURN_IF_ERROR(check_buffers(plan));
  ZS_RETURN_IF_ERROR(check_step_order(plan, marks));
  return check_segments(plan);
}

std::string to_text(const Plan& plan) {
  const BufferEvents events = buffer_events(plan);
  std::string out = "plan: " + plan.summary + "\n";
  for (const Segment& s : plan.segments) {
    out += "segment " + s.name + " ops " + std::to_string(s.first_op) + "-" +
           std::to_string(s.end_op - 1) + " x" + std::to_string(s.repeat) + "\n";
  }
  for (int i = 0; i < static_cast<int>(plan.ops.size()); ++i) {
    const Op& op = plan.ops[i];
    out += std::to_string(i) + " [" + plan.streams[op.stream].name + "] " +
           std::string(phase_name(op.phase)) + " " + std::string(plan.op_name(i)) + ": " +
           describe_work(op.work) + " deps " + ids(plan.deps(op)) + " alloc " +
           ids(events.allocs(i)) + " free " + ids(events.frees(i));
    if (op.transient_bytes > 0) out += " temp " + std::to_string(op.transient_bytes);
    if (op.host_waits) out += " host_waits";
    if (op.host_wait_for >= 0) out += " after_host_waits_for " + std::to_string(op.host_wait_for);
    for (int k = 0; k < kHostTaskCount; ++k) {
      const int n = op.host_calls[static_cast<HostTask>(k)];
      if (n == 0) continue;
      out += " host_calls " + std::string(host_task_name(static_cast<HostTask>(k))) + " x" +
             std::to_string(n);
    }
    if (op.skipped_on_overflow) out += " skipped_on_overflow";
    if (op.step_role != StepRole::kNone) out += " " + std::string(step_role_name(op.step_role));
    out += "\n";
  }
  for (int b = 0; b < static_cast<int>(plan.buffers.size()); ++b) {
    const Buffer& buf = plan.buffers[b];
    out +=
        "buffer " + std::to_string(b) + " " + std::string(plan.buffer_name(b)) + " " +
        std::to_string(buf.bytes) + " " + std::string(device_name(buf.device)) + " " +
        std::string(category_name(buf.category)) + (buf.persistent ? " persistent" : "") +
        (buf.persistent && buf.alloc_op >= 0
             ? " absent " + std::to_string(buf.free_op + 1) + "-" + std::to_string(buf.alloc_op - 1)
             : "") +
        (buf.model_state_bytes > 0 ? " model_state " + std::to_string(buf.model_state_bytes) : "") +
        "\n";
  }
  return out;
}

}  // namespace zs::plan
