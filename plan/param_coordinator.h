// Internal to plan/: DeepSpeed's ZeRO-3 parameter coordinator
// (partitioned_param_coordinator.py) replayed over one micro-step's module fetches, for the
// stage-3 schedule (schedule_stage3.cc): which parameters each HF submodule fetch gathers or
// prefetches, over which group, and when each is released. Like grad_bucket.h, a class shared by
// nothing else, kept apart so the schedule reads as the step it builds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "configs/ds_config.h"
#include "plan/builder.h"
#include "plan/micro_step_trace.h"
#include "plan/schedules.h"

namespace zs::plan {

// ZeRO++ hpZ across one step: which parameters have a secondary partition, and the buffer that
// holds those partitions (sum of N·ceil(n/N)/k elements), allocated at the first and freed at
// the step's end.
struct HpzState {
  int group = 1;                // zero_hpz_partition_size; 1: off
  std::vector<bool> secondary;  // per param
  int buffer = -1;
  Bytes bytes = 0;

  // Parameter p was partitioned after op `op`: with hpZ it keeps a secondary partition.
  void partitioned(PlanBuilder& b, int p, int op) {
    if (group <= 1 || secondary[p]) return;
    secondary[p] = true;
    if (buffer < 0) {
      buffer = b.buffer({"params.hpz_secondary"}, bytes, Device::kGpu, Category::kParams);
      b.alloc(op, buffer);
    }
  }
};

// DeepSpeed's PartitionedParameterCoordinator during one micro-step, in steady state
// (partitioned_param_coordinator.py at 0.19.6: _fetch_sub_module_impl, release_sub_module,
// __params_to_release, reset_step). Per module fetch, in order:
//  1. its parameters that are not available are all-gathered in one coalesced call (demand);
//  2. it waits for its parameters;
//  3. it pops them off the queue unless a prefetch already did;
//  4. it prefetches: pops queue entries while the elements chosen stay below
//     min(stage3_max_live_parameters - available, stage3_prefetch_bucket_size), choosing the
//     parameters not available, and marks every popped parameter "fetched for" the entry's
//     step; the chosen are gathered in one coalesced call.
// A parameter module is released right after it runs: each parameter not persistent, not
// "fetched for" a later step (the prefetcher ran past its next use) and not used again within
// stage3_max_reuse_distance elements of the queue, and not still in flight, is freed.
// The budget is spent per fetch, parameter-free modules included, so with the defaults the
// prefetcher races ahead of compute and the sticky "fetched for" rule keeps forward parameters
// for the backward: the oracle's runs gather every parameter once per micro-step.
// Simpler than the code: a block's gathered buffers are freed after its compute op, where
// DeepSpeed frees a module's after the module (GPT-2's embedding block holds wte and wpe).
class Coordinator {
 public:
  // `hpz`: hpZ's state across the step's micro-steps.
  Coordinator(PlanBuilder& b, const std::string& label, HpzState* hpz)
      : b_(b),
        l_(b.layout()),
        q_(l_.micro_step_trace()),
        modules_(l_.graph->modules.modules),
        label_(label),
        hpz_(hpz),
        max_live_(l_.max_live_parameters),
        prefetch_(l_.prefetch_bucket_size),
        reuse_(l_.max_reuse_distance) {
    const std::size_t n = l_.params().size();
    status_.assign(n, kNotAvailable);
    for (int p : l_.real_params()) {
      if (l_.persistent[p]) status_[p] = kAvailable;
    }
    fetched_for_.assign(n, std::numeric_limits<int>::min());
    active_.assign(n, 0);
    buffer_.assign(n, -1);
    fetched_by_.assign(n, -1);
    coalesced_.assign(n, false);
  }

  // Runs the fetches (and releases) of the modules visited before trace position t's compute.
  // Appends to *deps the gathers the compute waits for; *coalesced_bytes gets the working memory
  // of coalesced gathers. In backward it stops before a block's second parameter module (see
  // resume).
  void before(int t, std::vector<int>* deps, Bytes* coalesced_bytes) {
    const int n = static_cast<int>(q_.visits.size());
    pass_ = q_.entries[t].pass == Pass::kForward ? Phase::kForward : Phase::kBackward;
    position_ = t;
    fetched_here_.clear();
    for (; visit_ < n && q_.visits[visit_].trace_pos == t; ++visit_) {
      const FetchedModule& m = modules_[q_.visits[visit_].module];
      // resume() is called after backward compute only (recomputed blocks fetch as forward).
      if (q_.entries[t].pass == Pass::kBackward && !m.params.empty() && !fetched_here_.empty()) {
        break;
      }
      visit(q_.visits[visit_]);
    }
    // The compute waits for the gathers that brought its modules' parameters.
    const std::size_t first = deps->size();
    *coalesced_bytes = 0;
    int newest = -1;
    for (int p : fetched_here_) {
      if (fetched_by_[p] < 0) continue;  // persistent: never gathered
      if (std::find(deps->begin() + first, deps->end(), fetched_by_[p]) == deps->end()) {
        deps->push_back(fetched_by_[p]);
      }
      newest = std::max(newest, fetched_by_[p]);
      if (coalesced_[p]) *coalesced_bytes += l_.params()[p].numel * l_.param_bytes;
    }
    if (newest < 0) return;
    // fetch_sub_module records an event on the all-gather stream after each wait and, with
    // more than __max_ongoing_fetch_events (2) of them pending, synchronizes the oldest on the
    // host. Which are still pending is only known when the plan runs, so the host waits for the
    // fetch three back, finished or not, before it launches the module.
    events_.push_back(newest);
    if (events_.size() > 3) b_.host_wait_before_next(events_[events_.size() - 4]);
  }

  // A block of several parameter modules (GPT-2's embedding: wte and wpe) runs as one compute
  // op, while DeepSpeed's backward fetches the second module only after the first module's
  // gradients reached the bucket. So in backward the later modules are fetched after the
  // compute op, once the caller has added the gradients of fetched_here().
  void resume(int t) {
    const int n = static_cast<int>(q_.visits.size());
    for (; visit_ < n && q_.visits[visit_].trace_pos == t; ++visit_) visit(q_.visits[visit_]);
  }

  // The parameters of the modules fetched so far for the current trace position.
  const std::vector<int>& fetched_here() const { return fetched_here_; }

  // After trace position t's compute op and what followed it (its gradients' reductions, a
  // resumed fetch): frees what its modules' releases freed.
  void after() {
    const int op = b_.last_op();
    if (!deferred_.empty()) release_deferred();
    for (int p : to_free_) hpz_->partitioned(b_, p, op);
    for (int p : to_free_) {
      b_.free(op, buffer_[p]);
      buffer_[p] = -1;
    }
    to_free_.clear();
  }

  // reset_step at the end of backward: parameters still in flight are waited for and released,
  // and release_backward_leftovers frees the rest (a repeated micro-step must end as it began).
  void release_all(int op) {
    ZS_CHECK(visit_ == static_cast<int>(q_.visits.size()));  // every fetch was planned
    ZS_CHECK(deferred_.empty());                             // and every release
    after();
    for (int p : l_.real_params()) {
      if (buffer_[p] < 0) continue;
      hpz_->partitioned(b_, p, op);
      b_.free(op, buffer_[p]);
      buffer_[p] = -1;
      status_[p] = kNotAvailable;
    }
    available_ = 0;
  }

 private:
  enum Status : std::uint8_t { kNotAvailable, kInflight, kAvailable };

  // The fetch of module m at step visit_ and, for a parameter module, its release right after
  // it ran (the next step id; no other module is fetched in between, a leaf's submodules having
  // no hooks), which for a leaf spanning several blocks is after the last of them. Inlined, as
  // release(): left to the compiler, both came out of line and a sweep's stage-3 plans took 1.2%
  // more instructions (bench/simulate_instructions.sh).
  [[gnu::always_inline]] void visit(const ModuleVisit& v) {
    const FetchedModule& m = modules_[v.module];
    b_.host_calls_before_next(
        pass_ == Phase::kForward ? HostTask::kModuleVisit : HostTask::kModuleVisitBackward, 1);
    fetch(m, visit_);
    fetched_here_.insert(fetched_here_.end(), m.params.begin(), m.params.end());
    if (m.params.empty()) return;
    if (v.release_pos == v.trace_pos) {
      release(m, visit_ + 1);
    } else {
      deferred_.push_back(visit_);
    }
  }

  // The leaf modules whose last block in this pass has run.
  [[gnu::noinline]] void release_deferred() {
    for (std::size_t k = 0; k < deferred_.size();) {
      if (q_.visits[deferred_[k]].release_pos != position_) {
        ++k;
        continue;
      }
      release(modules_[q_.visits[deferred_[k]].module], deferred_[k] + 1);
      deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }

  void fetch(const FetchedModule& m, int step_id) {
    scratch_.clear();
    for (int p : m.params) {
      if (status_[p] == kNotAvailable) scratch_.push_back(p);
    }
    if (!scratch_.empty()) gather(scratch_, "fetch");
    int not_yet_popped = 0;
    for (int p : m.params) {
      ++active_[p];
      if (status_[p] == kInflight) status_[p] = kAvailable;
      if (fetched_for_[p] < step_id) ++not_yet_popped;
    }
    // Pops this module's own entries unless a prefetch already did.
    for (int k = 0; k < not_yet_popped && head_ < q_.param.size(); ++k, ++head_) {
      fetched_for_[q_.param[head_]] = q_.step[head_];
    }
    if (prefetch_ <= 0) return;
    const std::int64_t budget = std::min(max_live_ - available_, prefetch_);
    std::int64_t chosen = 0;
    scratch_.clear();
    while (head_ < q_.param.size() && chosen < budget) {
      const int p = q_.param[head_];
      fetched_for_[p] = std::max(fetched_for_[p], q_.step[head_]);
      ++head_;
      if (status_[p] != kNotAvailable ||
          std::find(scratch_.begin(), scratch_.end(), p) != scratch_.end()) {
        continue;
      }
      scratch_.push_back(p);
      chosen += l_.params()[p].numel;
    }
    if (!scratch_.empty()) gather(scratch_, "prefetch");
  }

  // release_sub_module of module m with the coordinator at `step_id`.
  [[gnu::always_inline]] void release(const FetchedModule& m, int step_id) {
    const int s = step_id - 1;  // the module's own fetch
    for (std::size_t k = 0; k < m.params.size(); ++k) {
      const int p = m.params[k];
      --active_[p];
      if (l_.persistent[p] || fetched_for_[p] > step_id) continue;
      // Used again within max_reuse_distance: the scan from step_id adds each fetched module's
      // elements and stops once they reach the distance.
      const int next = q_.next_step[q_.entry_begin[s] + static_cast<int>(k)];
      if (next >= 0 && q_.numel_before[next] - q_.numel_before[step_id] < reuse_) continue;
      if (status_[p] != kAvailable || active_[p] > 0) continue;
      status_[p] = kNotAvailable;
      available_ -= l_.params()[p].numel;
      to_free_.push_back(p);
    }
  }

  // One coalesced fetch: with hpZ, the parameters with a secondary partition are gathered first,
  // within their group, then the others (partitioned_param_coordinator.py __all_gather_params_).
  void gather(const std::vector<int>& params, const char* what) {
    if (hpz_->group <= 1) {
      gather_over(params, what, l_.world);
      return;
    }
    std::vector<int> with, without;
    for (int p : params) (hpz_->secondary[p] ? with : without).push_back(p);
    if (!with.empty()) gather_over(with, what, hpz_->group);
    if (!without.empty()) gather_over(without, what, l_.world);
  }

  void gather_over(const std::vector<int>& params, const char* what, int group) {
    std::int64_t elems = 0;
    for (int p : params) elems += l_.world * l_.partition_elems[p];
    int h2d = -1;
    if (l_.offload_param) {
      // Partitions come from (pinned) host memory first (partition_parameters.py).
      const Bytes bytes = elems / l_.world * l_.param_bytes;
      h2d = b_.op(b_.name(label_, ".h2d_params.", b_.plan().ops.size()), b_.h2d_stream(), pass_,
                  CopyWork{bytes, true, true});
    }
    const CollectiveWork work = gather_params(b_, params, group);
    if (params.size() == 1) {
      b_.host_calls_before_next(HostTask::kGatherSingle, 1);
    } else {
      b_.host_calls_before_next(HostTask::kGather, 1);
      b_.host_calls_before_next(HostTask::kGatherParam, static_cast<int>(params.size()));
    }
    const std::size_t id = b_.plan().ops.size();
    const NameRef name = b_.name(label_, ".", what, ".", id);
    const int op = h2d >= 0 ? b_.op(name, b_.gather_stream(), pass_, work, {h2d})
                            : b_.op(name, b_.gather_stream(), pass_, work);
    for (int p : params) {
      buffer_[p] = b_.buffer(b_.name(label_, ".gathered.", id, ".", l_.params()[p].name),
                             l_.world * l_.partition_elems[p] * l_.param_bytes, Device::kGpu,
                             Category::kParams);
      b_.alloc(op, buffer_[p]);
      fetched_by_[p] = op;
      coalesced_[p] = params.size() > 1;
      status_[p] = kInflight;
      available_ += l_.params()[p].numel;
    }
  }

  PlanBuilder& b_;
  const Layout& l_;
  // What DeepSpeed's coordinator replays every micro-step once its trace is complete: the module
  // fetches and the parameter queue built from them (the graph's, plan/micro_step_trace.h).
  const MicroStepTrace& q_;
  const std::vector<FetchedModule>& modules_;
  std::string label_;
  HpzState* hpz_;
  std::int64_t max_live_, prefetch_, reuse_;
  Phase pass_ = Phase::kForward;
  int visit_ = 0;                 // the next module visit
  int position_ = 0;              // the trace position of the last before()
  std::size_t head_ = 0;          // the queue's first entry not popped
  std::int64_t available_ = 0;    // __n_available_params
  std::vector<Status> status_;    // per param
  std::vector<int> fetched_for_;  // __most_recent_step_id_param_fetched_for
  std::vector<int> active_;       // per param: modules fetched and not released
  std::vector<int> buffer_;       // per param: its gathered buffer, or -1
  std::vector<int> fetched_by_;   // per param: the gather op that brought it
  std::vector<bool> coalesced_;   // per param: it came in a gather of several parameters
  std::vector<int> scratch_;
  std::vector<int> to_free_;       // released since the last compute op
  std::vector<int> deferred_;      // visits of leaf modules not released yet
  std::vector<int> fetched_here_;  // params of the modules fetched for the current position
  std::vector<int> events_;        // the newest gather each block waited for, in order
};

}  // namespace zs::plan
