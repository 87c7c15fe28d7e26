// Internal to plan/: the pieces every stage's schedule is built from. PlanBuilder appends
// streams, buffers, ops and segments to a Plan; MicroStepCompute emits the model's forward and
// backward for one micro-step (with activation buffers and recomputation), block by block, while
// the stage's schedule adds its own work around each block in its own loop.
#pragma once

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/check.h"
#include "plan/layout.h"
#include "plan/plan.h"

namespace zs::plan {

class PlanBuilder {
 public:
  // Reserves room for a micro-step's ops, buffers and names (a guess from the trace length).
  // Without `names` every op and buffer gets an empty name (PlanRequest::names).
  explicit PlanBuilder(const Layout& layout, bool names = true);

  const Layout& layout() const { return l_; }
  Plan& plan() { return plan_; }

  // Like names, the gradient elements a reduction carries (CollectiveWork::slices) describe the
  // Plan for an executor or a reader, which a sweep never is: kept only with names.
  bool keeps_slices() const { return names_; }
  // `s` appended to the plan's slices; empty without names.
  IdRange slices(std::span<const ParamSlice> s) { return names_ ? plan_.add_slices(s) : IdRange{}; }
  // The whole gradients of `params`, in order; empty without names.
  IdRange whole_params(std::span<const int> params);
  // Every parameter of the stage-1/2 flat group, whole, in flat order (Layout::flat_offset).
  IdRange flat_group();

  // Streams, created on first use. Without overlap_comm DeepSpeed runs its collectives on the
  // current (compute) stream, so reduce_stream()/gather_stream() return the compute stream.
  int compute_stream() { return stream(&compute_, "compute", StreamKind::kCompute); }
  int reduce_stream() {
    return l_.overlap_comm ? stream(&reduce_, "reduce", StreamKind::kCollective) : compute_stream();
  }
  int gather_stream() {
    return l_.overlap_comm ? stream(&gather_, "allgather", StreamKind::kCollective)
                           : compute_stream();
  }
  int h2d_stream();
  int d2h_stream();
  int host_stream();  // the host thread (StreamKind::kCpu); use host_op / host_sync
  int nvme_stream();

  // Names are given as parts that are concatenated: {label, ".ipg.", i}.
  using Name = std::initializer_list<NamePart>;
  // The same as a NameRef made up front, for hot paths: name(label, ".ipg.", i) builds nothing,
  // not even the parts, when the plan keeps no names.
  template <class... Parts>
  NameRef name(const Parts&... parts) {
    return names_ ? plan_.add_name({NamePart(parts)...}) : NameRef{};
  }

  int persistent(Name name, Bytes bytes, Device device, Category category,
                 bool model_state = false);
  int buffer(Name name, Bytes bytes, Device device, Category category, bool model_state = false) {
    return buffer(make_name(name), bytes, device, category, model_state);
  }
  int buffer(NameRef name, Bytes bytes, Device device, Category category, bool model_state = false);

  // Appends an op; returns its id. The op also depends on the last op issued on its stream
  // only implicitly (streams are FIFO); `deps` are the cross-stream dependencies.
  int op(NameRef name, int stream, Phase phase, const Work& work, std::span<const int> deps);
  int op(NameRef name, int stream, Phase phase, const Work& work,
         std::initializer_list<int> deps = {}) {
    return op(name, stream, phase, work, std::span<const int>(deps.begin(), deps.size()));
  }
  int op(Name name, int stream, Phase phase, const Work& work, std::span<const int> deps) {
    return op(make_name(name), stream, phase, work, deps);
  }
  int op(Name name, int stream, Phase phase, const Work& work,
         std::initializer_list<int> deps = {}) {
    return op(make_name(name), stream, phase, work,
              std::span<const int>(deps.begin(), deps.size()));
  }
  Op& at(int id) { return plan_.ops[id]; }

  // The host blocks until `deps` have finished (event.synchronize(), `.item()`); `rounds` host-
  // device round trips. Returns the sync op, on the host stream.
  int host_sync(Name name, Phase phase, std::span<const int> deps, int rounds = 1);
  int host_sync(Name name, Phase phase, std::initializer_list<int> deps, int rounds = 1) {
    return host_sync(name, phase, std::span<const int>(deps.begin(), deps.size()), rounds);
  }
  // The host synchronizes on op `op_id` (event.synchronize()) before it issues the next op
  // appended: Op::host_wait_for of that op. REQUIRES: no such wait is pending already.
  void host_wait_before_next(int op_id) {
    ZS_CHECK(pending_wait_ < 0 && op_id >= 0 && op_id <= last_op());
    pending_wait_ = op_id;
  }
  // The host makes `calls` framework calls of kind `task` before it issues the next op appended
  // (Op::host_calls): a hook that runs between two launches.
  void host_calls_before_next(HostTask task, int calls) { pending_calls_.add(task, calls); }
  // torch.cuda.synchronize(): the host waits for the last op issued on every stream.
  int device_sync(Name name, Phase phase);
  // Work the host thread does itself (CPU Adam): runs on the host stream, the host waits.
  int host_op(Name name, Phase phase, Work work, std::span<const int> deps);
  int host_op(Name name, Phase phase, Work work, std::initializer_list<int> deps) {
    return host_op(name, phase, std::move(work), std::span<const int>(deps.begin(), deps.size()));
  }
  // Buffer `buffer_id` is allocated when op `op_id` is issued / released after it is issued.
  void alloc(int op_id, int buffer_id) {
    Buffer& b = plan_.buffers[buffer_id];
    ZS_CHECK(!b.persistent && b.alloc_op < 0);
    b.alloc_op = op_id;
  }
  void free(int op_id, int buffer_id) {
    Buffer& b = plan_.buffers[buffer_id];
    ZS_CHECK(!b.persistent && b.free_op < 0);
    b.free_op = op_id;
  }
  // Persistent buffer `buffer_id` is released after `free_op_id` is issued and allocated again
  // when `alloc_op_id` is issued. REQUIRES: free_op_id < alloc_op_id, no gap yet.
  void persistent_gap(int buffer_id, int free_op_id, int alloc_op_id) {
    Buffer& b = plan_.buffers[buffer_id];
    ZS_CHECK(b.persistent && b.alloc_op < 0 && free_op_id >= 0 && free_op_id < alloc_op_id);
    b.free_op = free_op_id;
    b.alloc_op = alloc_op_id;
  }
  int last_op() const { return static_cast<int>(plan_.ops.size()) - 1; }
  // The last op issued on `stream`, or -1.
  int last_on(int stream) const;

  void begin_segment(std::string name, int repeat);
  void end_segment();

  Plan finish(std::string summary);

 private:
  int stream(int* slot, const char* name, StreamKind kind) {
    return *slot >= 0 ? *slot : add_stream(slot, name, kind);
  }
  int add_stream(int* slot, const char* name, StreamKind kind);
  NameRef make_name(Name parts) { return names_ ? plan_.add_name(parts) : NameRef{}; }

  const Layout& l_;
  bool names_;
  Plan plan_;
  std::vector<int> last_on_;  // per stream
  int compute_ = -1, reduce_ = -1, gather_ = -1, h2d_ = -1, d2h_ = -1, host_ = -1, nvme_ = -1;
  std::optional<Segment> open_;
  int pending_wait_ = -1;    // host_wait_before_next's op, for the next op appended
  HostCalls pending_calls_;  // host_calls_before_next's, for the next op appended
};

// The label a micro-step's op and buffer names start with ("mb0", "mb1-6", ...).
std::string micro_step_label(int first, int last);

// The model's compute in one micro-step: forward then backward, one compute op per entry of
// Layout::trace, with activation buffers allocated in forward and freed in backward, the logits
// held until backward ends (models/activations.h), and, with checkpointing, each layer's input
// kept in forward and its blocks recomputed just before their backward. The stage's schedule
// drives it, adding its own work before and after each block:
//
//   MicroStepCompute model(b, label);
//   while (!model.done()) {
//     const TraceEntry& e = model.next();
//     ... fetches the compute must wait for ...
//     const int op = model.run(deps);
//     ... gradient hooks, releases ...
//   }
//   const int last = model.finish();  // the last backward op; the logits are freed there
class MicroStepCompute {
 public:
  MicroStepCompute(PlanBuilder& b, std::string label);

  bool done() const { return pos_ == static_cast<int>(trace_.size()); }
  // The trace entry run() emits next, and its position in Layout::trace.
  const TraceEntry& next() const { return trace_[pos_]; }
  int position() const { return pos_; }
  // Emits the compute op of next() after `deps` and returns its id. REQUIRES: !done()
  int run(std::span<const int> deps = {});
  // REQUIRES: done(). Frees the logits after the last backward op and returns that op.
  int finish();

 private:
  PlanBuilder& b_;
  const Layout& l_;
  std::span<const TraceEntry> trace_;  // l_.trace()
  std::string label_;
  int pos_ = 0;
  Bytes checkpoint_bytes_ = 0;  // a checkpointed layer's input
  std::vector<int> act_;        // per block: its saved (or recomputed) activations
  std::vector<int> ckpt_;       // per block: the checkpoint its layer's first block holds
  int lm_head_ = -1;            // the block whose logits the training loop holds
  int logits_ = -1;
  int last_backward_ = -1;
  bool backward_begun_ = false;
};

}  // namespace zs::plan
