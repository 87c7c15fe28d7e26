#include "sim/engine.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace zs::sim {
namespace {

using plan::Plan;

// Costs are non-negative: rounding half up is llround's half-away-from-zero, without the call.
// Saturates at kMaxDurationNs (and NaN goes there too), so that sums of two stay in int64.
std::int64_t to_ns(double seconds) {
  const double ns = seconds * 1e9 + 0.5;
  if (!(ns < static_cast<double>(kMaxDurationNs))) return kMaxDurationNs;
  return static_cast<std::int64_t>(ns);
}

enum class EventKind : std::uint8_t { kHostIssue, kOpEnd, kFlowStart, kLinkCheck };

struct Event {
  std::int64_t t = 0;
  std::uint64_t seq = 0;  // ties at equal t go in the order events were scheduled
  int id = 0;             // an op, or a link for kLinkCheck
  EventKind kind = EventKind::kHostIssue;
  bool before(const Event& o) const { return t != o.t ? t < o.t : seq < o.seq; }
};

// The pending events. There is at most one per stream (its running op's flow start or end), one
// per link (its next completion check, replaced whenever the link re-divides) and one for the
// host (its next issue), so a fixed slot each and a linear scan for the earliest do the work of
// a heap without moving events around or leaving stale checks behind.
class EventSlots {
 public:
  EventSlots(int streams, int links)
      : events_(streams + links + 1), where_(streams + links + 1, -1), streams_(streams) {
    pending_.reserve(events_.size());
  }

  int stream_slot(int stream) const { return stream; }
  int link_slot(int link) const { return streams_ + link; }
  int host_slot() const { return static_cast<int>(events_.size()) - 1; }
  bool active(int slot) const { return where_[slot] >= 0; }
  bool empty() const { return pending_.empty(); }

  void set(int slot, const Event& e) {
    if (!active(slot)) {
      where_[slot] = static_cast<int>(pending_.size());
      pending_.push_back(slot);
    }
    events_[slot] = e;
    if (earliest_ == slot) {
      rescan();
    } else if (earliest_ < 0 || e.before(events_[earliest_])) {
      earliest_ = slot;
    }
  }
  void clear(int slot) {
    const int at = where_[slot];
    if (at < 0) return;
    where_[pending_.back()] = at;
    pending_[at] = pending_.back();
    pending_.pop_back();
    where_[slot] = -1;
    if (earliest_ == slot) rescan();
  }
  // REQUIRES: !empty(). The slot of the earliest event.
  int earliest() const { return earliest_; }
  const Event& at(int slot) const { return events_[slot]; }

 private:
  void rescan() {
    earliest_ = -1;
    for (int slot : pending_) {
      if (earliest_ < 0 || events_[slot].before(events_[earliest_])) earliest_ = slot;
    }
  }

  std::vector<Event> events_;
  std::vector<int> where_;    // per slot: its index in pending_, or -1
  std::vector<int> pending_;  // the slots holding an event
  int streams_;
  int earliest_ = -1;
};

struct Flow {
  int op = 0;
  double remaining = 0;
  double amount = 0;  // at the start, for the rounding slack of the finish test
  double cap = 0;
  double rate = 0;
};

struct LinkState {
  double capacity = 0;
  std::vector<Flow> flows;
  std::int64_t updated_ns = 0;
};

enum class OpState : std::uint8_t { kPending, kQueued, kRunning, kDone };

// Everything the event loop reads and writes about an op, in one record: the Plan's ops carry
// names and variants the loop does not need.
struct HotOp {
  std::int64_t before_ns = 0;  // host work before its issue
  std::int64_t host_ns = 0;
  std::int64_t wait_ns = 0;     // the round trip of the wait before it
  std::int64_t fixed_ns = 0;    // 0 when skipped
  std::int64_t not_before = 0;  // when the host has finished issuing it
  int wait_for = -1;            // Op::host_wait_for
  int stream = 0;
  int link = -1;                 // -1: no flow (or skipped)
  int next_on_stream = -1;       // the next op of its stream in issue order, or -1
  std::uint32_t dep_cursor = 0;  // its first dep not known to be done (into Plan::dep_ids)
  std::uint32_t deps_end = 0;
  OpState state = OpState::kPending;
  bool has_waiter = false;  // the head of some stream has waited for it
  bool waits = false;       // the host blocks until it finishes
  bool skipped = false;     // an overflow step skips it
  bool compute = false;     // plan::ComputeWork
};

class Engine {
 public:
  Engine(const Plan& plan, const std::vector<OpCost>& costs, const std::vector<Link>& links,
         const EngineOptions& options)
      : plan_(plan),
        costs_(costs),
        options_(options),
        n_(static_cast<int>(plan.ops.size())),
        head_(plan.streams.size(), -1),
        running_(plan.streams.size(), -1),
        waiting_on_(plan.streams.size(), -1),
        events_(static_cast<int>(plan.streams.size()), static_cast<int>(links.size())) {
    ZS_CHECK(costs.size() == plan.ops.size());
    hot_.reserve(n_);  // each record is written once, below
    std::vector<char> on_host(plan.streams.size());
    for (std::size_t s = 0; s < on_host.size(); ++s) {
      on_host[s] = plan.streams[s].kind == plan::StreamKind::kCpu;
    }
    // Streams are FIFO in issue order: a stream's queue is its ops from head_ on that the host
    // has issued, linked by next_on_stream.
    std::vector<int> last(plan.streams.size(), -1);
    for (int i = 0; i < n_; ++i) {
      const plan::Op& op = plan.ops[i];
      const OpCost& c = costs[i];
      HotOp& h = hot_.emplace_back();
      h.skipped = options.overflow && op.skipped_on_overflow;
      // A skipped op costs the host nothing either: DeepSpeed returns from step() after the
      // overflow check, before the norm, the optimizer and their launches and syncs
      // (runtime/zero/stage_1_and_2.py step, runtime/fp16/fused_optimizer.py step).
      h.before_ns = h.skipped ? 0 : to_ns(c.host_before_s);
      h.host_ns = h.skipped ? 0 : to_ns(c.host_s);
      h.wait_ns = h.skipped ? 0 : to_ns(c.host_wait_s);
      h.wait_for = h.skipped ? -1 : op.host_wait_for;
      h.fixed_ns = h.skipped ? 0 : to_ns(c.fixed_s);
      h.stream = op.stream;
      h.link = !h.skipped && c.link >= 0 && c.link_amount > 0 ? c.link : -1;
      h.waits = options.serial || (!h.skipped && (op.host_waits || on_host[op.stream] != 0));
      h.compute = std::holds_alternative<plan::ComputeWork>(op.work);
      h.dep_cursor = op.deps.begin;
      h.deps_end = op.deps.end;
      int& prev = last[op.stream];
      if (prev >= 0) {
        hot_[prev].next_on_stream = i;
      } else {
        head_[op.stream] = i;
      }
      prev = i;
    }
    for (const Link& l : links) links_.push_back(LinkState{l.capacity, {}, 0});
    if (options.record) result_.ops.assign(n_, OpTime{});
    log_transitions_ = options.record || options.record_transitions;
    if (log_transitions_) result_.transitions.reserve(2 * static_cast<std::size_t>(n_));
  }

  // REQUIRES: costs finite and >= 0 (run_engine checks).
  Result<EngineResult> run() {
    for (const plan::Segment& seg : plan_.segments) {
      if (past_horizon_) break;
      if (seg.end_op == seg.first_op) {
        result_.segments.push_back(SegmentTime{host_t_, 0, seg.repeat});
        continue;
      }
      if (seg.repeat > 1 && in_flight_ > 0) drain();
      const std::int64_t start = host_t_;
      seg_first_ = seg.first_op;
      seg_repeat_ = seg.repeat;
      issue_range(seg.first_op, seg.end_op);
      if (seg.repeat > 1) {
        const std::int64_t host_done = host_t_;
        drain();
        if (host_t_ > host_done) result_.drained_repeats += seg.repeat - 1;
        const std::int64_t period = host_t_ - start;
        if (period > 0 && seg.repeat - 1 > (kHorizonNs - host_t_) / period) {
          past_horizon_ = true;
          break;
        }
        host_t_ += (seg.repeat - 1) * period;
        now_ = host_t_;
        result_.segments.push_back(SegmentTime{start, period, seg.repeat});
      } else {
        result_.segments.push_back(SegmentTime{start, 0, 1});
      }
    }
    if (!past_horizon_) drain();
    if (past_horizon_) {
      return Status::invalid_argument(
          "the simulated step would take longer than " +
          std::to_string(kHorizonNs / 1'000'000'000 / 86400 / 365) +
          " years: a rate in the cluster or profile is far too small for the work (check the "
          "bandwidths and FLOP/s), or the workload is far too large");
    }
    result_.step_ns = std::max(host_t_, now_);
    // Single segments: their period is where the next one starts (or the step ends).
    for (std::size_t i = 0; i < result_.segments.size(); ++i) {
      SegmentTime& s = result_.segments[i];
      if (s.repeat == 1) {
        const std::int64_t next =
            i + 1 < result_.segments.size() ? result_.segments[i + 1].start_ns : result_.step_ns;
        s.period_ns = next - s.start_ns;
      }
    }
    return std::move(result_);
  }

 private:
  // Whether time t is past the horizon; it stops the run when it is.
  bool past_horizon(std::int64_t t) {
    if (t > kHorizonNs) past_horizon_ = true;
    return past_horizon_;
  }

  void push(std::int64_t t, EventKind kind, int id) {
    int slot = 0;
    switch (kind) {
      case EventKind::kHostIssue:
        slot = events_.host_slot();
        break;
      case EventKind::kOpEnd:
      case EventKind::kFlowStart:
        slot = events_.stream_slot(hot_[id].stream);
        break;
      case EventKind::kLinkCheck:
        slot = events_.link_slot(id);
        break;
    }
    // Only a link's check is ever replaced: a stream runs one op, the host issues one at a time.
    ZS_CHECK(kind == EventKind::kLinkCheck || !events_.active(slot));
    events_.set(slot, Event{t, seq_++, id, kind});
  }

  // Issues ops [first, end) and runs events until the host has issued them all.
  void issue_range(int first, int end) {
    next_ = first;
    end_issue_ = end;
    if (host_blocked_on_ < 0) push(host_t_, EventKind::kHostIssue, 0);
    while (!past_horizon_ && (next_ < end_issue_ || host_blocked_on_ >= 0)) {
      ZS_CHECK(!events_.empty());
      step();
    }
  }

  // Runs until nothing is in flight; the host resumes when the last op finishes.
  void drain() {
    while (!past_horizon_ && !events_.empty()) step();
    if (past_horizon_) return;
    ZS_CHECK(in_flight_ == 0);
    host_t_ = std::max(host_t_, now_);
  }

  // Inlined into the two event loops and the three callers of try_start: they run once per
  // event, and a call costs as much as the work.
  [[gnu::always_inline]] void step() {
    const int slot = events_.earliest();
    const Event e = events_.at(slot);
    if (past_horizon(e.t)) return;  // every later time is too: stop (run() reports it)
    events_.clear(slot);
    now_ = std::max(now_, e.t);
    switch (e.kind) {
      case EventKind::kHostIssue:
        host_issue(e.t);
        break;
      case EventKind::kOpEnd:
        finish(e.id, e.t);
        break;
      case EventKind::kFlowStart:
        flow_start(e.id, e.t);
        break;
      case EventKind::kLinkCheck:
        link_check(e.id, e.t);
        break;
    }
  }

  // Issues ops from the host clock t. The host issues back to back without a round trip
  // through the event slots while no other event is due first (an event due at the same time was
  // scheduled earlier and goes first, as its sequence number says).
  void host_issue(std::int64_t t) {
    while (next_ < end_issue_) {
      const int i = next_;
      const HotOp& h = hot_[i];
      if (h.before_ns > 0 && prepaid_ != i) {
        // The framework's work before the launch; events due meanwhile happen first.
        prepaid_ = i;
        t += h.before_ns;
        host_t_ = t;
        if (past_horizon(t)) return;
        if (!events_.empty() && events_.at(events_.earliest()).t <= t) {
          push(t, EventKind::kHostIssue, 0);
          return;
        }
        now_ = std::max(now_, t);
      }
      if (h.wait_for >= 0 && waited_ != i) {
        // event.synchronize() before the launch: a round trip, then the host sleeps until the
        // op it waits for has finished (finish() wakes it and this op is issued then).
        waited_ = i;
        if (options_.record) result_.ops[i].wait_ns = t;
        t += h.wait_ns;
        host_t_ = t;
        if (past_horizon(t)) return;
        if (hot_[h.wait_for].state != OpState::kDone) {
          host_blocked_on_ = h.wait_for;
          return;
        }
        // Events due during the round trip happen first (an op ending then frees its stream
        // for this one); the host issues it when they have.
        if (!events_.empty() && events_.at(events_.earliest()).t <= t) {
          push(t, EventKind::kHostIssue, 0);
          return;
        }
        now_ = std::max(now_, t);
      }
      ++next_;
      HotOp& q = hot_[i];
      q.state = OpState::kQueued;
      ++in_flight_;
      q.not_before = t + h.host_ns;
      if (options_.record) result_.ops[i].issue_ns = t;
      host_t_ = t + h.host_ns;
      if (past_horizon(host_t_)) return;
      if (h.waits) host_blocked_on_ = i;
      try_start(h.stream, options_.serial ? host_t_ : t);
      if (h.waits || next_ >= end_issue_) return;
      if (!events_.empty() && events_.at(events_.earliest()).t <= host_t_) {
        push(host_t_, EventKind::kHostIssue, 0);
        return;
      }
      t = host_t_;
      now_ = std::max(now_, t);
    }
  }

  // True when op i's dependencies have finished; otherwise records the one it waits for.
  bool deps_done(HotOp& h, int stream) {
    const int* deps = plan_.dep_ids.data();
    std::uint32_t c = h.dep_cursor;
    while (c < h.deps_end && hot_[deps[c]].state == OpState::kDone) ++c;
    h.dep_cursor = c;
    if (c == h.deps_end) return true;
    waiting_on_[stream] = deps[c];
    hot_[deps[c]].has_waiter = true;
    return false;
  }

  // Starts the op at the head of `stream` if it has been issued, the stream is free and its
  // dependencies have finished.
  [[gnu::always_inline]] void try_start(int stream, std::int64_t t) {
    const int i = head_[stream];
    if (running_[stream] >= 0 || i < 0 || i >= next_) return;
    HotOp& h = hot_[i];
    if (!deps_done(h, stream)) return;
    waiting_on_[stream] = -1;
    head_[stream] = h.next_on_stream;
    running_[stream] = i;
    h.state = OpState::kRunning;
    if (options_.record) result_.ops[i].start_ns = t;
    if (log_transitions_) result_.transitions.push_back(Transition{t, i, +1});
    if (h.link >= 0) {
      push(t + h.fixed_ns, EventKind::kFlowStart, i);
    } else {
      if (h.compute && !h.skipped && h.not_before > t + h.fixed_ns) {
        // A repeated segment drains before the next begins, so an op of one starts while it
        // is the segment being issued; others count once.
        const std::int64_t weight = i >= seg_first_ ? seg_repeat_ : 1;
        result_.compute_host_bound_ns += weight * (h.not_before - t - h.fixed_ns);
      }
      push(h.skipped ? t : std::max(t + h.fixed_ns, h.not_before), EventKind::kOpEnd, i);
    }
  }

  void finish(int i, std::int64_t t) {
    const int stream = hot_[i].stream;
    hot_[i].state = OpState::kDone;
    --in_flight_;
    if (options_.record) result_.ops[i].end_ns = t;
    if (log_transitions_) result_.transitions.push_back(Transition{t, i, -1});
    running_[stream] = -1;
    // Only the op's own stream and streams whose head waits for it can start something now.
    if (!hot_[i].has_waiter) {
      try_start(stream, t);
    } else {
      for (int s = 0; s < static_cast<int>(running_.size()); ++s) {
        if (s == stream || waiting_on_[s] == i) try_start(s, t);
      }
    }
    if (host_blocked_on_ == i) {
      host_blocked_on_ = -1;
      host_t_ = std::max(host_t_, t);
      if (next_ < end_issue_) push(host_t_, EventKind::kHostIssue, 0);
    }
  }

  // Brings a link's flows to time t.
  void advance(LinkState& l, std::int64_t t) {
    const double dt = static_cast<double>(t - l.updated_ns) * 1e-9;
    if (dt > 0) {
      for (Flow& f : l.flows) f.remaining -= f.rate * dt;
    }
    l.updated_ns = t;
  }

  // Max-min fair rates, then the next completion check.
  void rebalance(int link, std::int64_t t) {
    LinkState& l = links_[link];
    if (l.flows.empty()) {
      events_.clear(events_.link_slot(link));
      return;
    }
    if (l.flows.size() == 1) {
      l.flows[0].rate = std::min(l.flows[0].cap, l.capacity);  // the usual case, no sort
    } else {
      // Max-min fairness: the most capped flows take their cap, the rest share what is left.
      // A link carries a handful of flows: an insertion sort by (cap, index).
      order_.resize(l.flows.size());
      for (std::size_t k = 0; k < order_.size(); ++k) {
        const int idx = static_cast<int>(k);
        const double cap = l.flows[k].cap;
        std::size_t j = k;
        for (; j > 0 && l.flows[order_[j - 1]].cap > cap; --j) order_[j] = order_[j - 1];
        order_[j] = idx;
      }
      double left = l.capacity;
      std::size_t n = order_.size();
      for (int k : order_) {
        Flow& f = l.flows[k];
        f.rate = std::min(f.cap, left / static_cast<double>(n));
        left -= f.rate;
        --n;
      }
    }
    double soonest = -1;
    for (const Flow& f : l.flows) {
      const double s = std::max(f.remaining, 0.0) / f.rate;
      if (soonest < 0 || s < soonest) soonest = s;
    }
    // ceil(soonest in ns), soonest >= 0, without a libm call; saturated as to_ns does.
    const double soonest_ns = soonest * 1e9;
    std::int64_t wait_ns = kMaxDurationNs;
    if (soonest_ns < static_cast<double>(kMaxDurationNs)) {
      wait_ns = static_cast<std::int64_t>(soonest_ns);
      if (static_cast<double>(wait_ns) < soonest_ns) ++wait_ns;
    }
    push(t + std::max<std::int64_t>(wait_ns, 0), EventKind::kLinkCheck, link);
  }

  void flow_start(int i, std::int64_t t) {
    const OpCost& c = costs_[i];
    LinkState& l = links_[c.link];
    advance(l, t);
    l.flows.push_back(
        Flow{i, c.link_amount, c.link_amount, c.rate_cap > 0 ? c.rate_cap : l.capacity, 0});
    if (options_.record) result_.ops[i].flow_start_ns = t;
    rebalance(c.link, t);
  }

  void link_check(int link, std::int64_t t) {
    LinkState& l = links_[link];
    advance(l, t);
    done_.clear();
    for (std::size_t k = 0; k < l.flows.size();) {
      const Flow& f = l.flows[k];
      // Finished, up to the nanosecond rounding of the check's time and the floating-point
      // residue of subtracting rate x time from a large amount (without the relative slack, a
      // residue worth more than a nanosecond of a slow flow would be re-checked a nanosecond at
      // a time).
      if (f.remaining <= f.rate * 1e-9 + 1e-9 + f.amount * 1e-12) {
        done_.push_back(f.op);
        l.flows.erase(l.flows.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    rebalance(link, t);
    // A finished flow ends its op now, unless the host is still issuing it (HotOp::not_before).
    for (int op : done_) {
      if (hot_[op].not_before <= t) {
        finish(op, t);
      } else {
        push(hot_[op].not_before, EventKind::kOpEnd, op);
      }
    }
  }

  const Plan& plan_;
  const std::vector<OpCost>& costs_;
  EngineOptions options_;
  int n_;
  std::vector<HotOp> hot_;
  std::vector<int> head_;  // per stream: its first op not yet started, or -1
  std::vector<int> running_;
  std::vector<int> waiting_on_;  // per stream: the op its head waits for, or -1
  std::vector<LinkState> links_;
  EventSlots events_;
  std::uint64_t seq_ = 0;
  std::int64_t now_ = 0;
  std::int64_t host_t_ = 0;
  int host_blocked_on_ = -1;
  int waited_ = -1;   // the op whose host_wait_for wait the host has done
  int prepaid_ = -1;  // the op whose host_before_s the host has spent
  bool log_transitions_ = false;
  int next_ = 0;
  int end_issue_ = 0;
  int seg_first_ = 0;  // the segment being issued: its first op and repeat count
  std::int64_t seg_repeat_ = 1;
  int in_flight_ = 0;
  bool past_horizon_ = false;  // an event fell past kHorizonNs: the run stops
  std::vector<int> order_;
  std::vector<int> done_;
  EngineResult result_;
};

}  // namespace

Result<EngineResult> run_engine(const plan::Plan& plan, const std::vector<OpCost>& costs,
                                const std::vector<Link>& links, const EngineOptions& options) {
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const OpCost& c = costs[i];
    ZS_CHECK(c.link < static_cast<int>(links.size()));
    // Costs come from rates the user may give (a cluster file, a profile): a NaN or a negative
    // one is bad input, reported, never a wrong or endless run.
    for (const double v :
         {c.host_before_s, c.host_s, c.host_wait_s, c.fixed_s, c.link_amount, c.rate_cap}) {
      if (!(v >= 0)) {
        return Status::invalid_argument("op " + std::to_string(i) + " (" +
                                        std::string(plan.op_name(static_cast<int>(i))) +
                                        ") has a cost that is not a number >= 0: a rate in the "
                                        "cluster or profile is zero, negative or not finite");
      }
    }
  }
  for (const Link& l : links) {
    if (!(l.capacity > 0)) {
      return Status::invalid_argument("link " + l.name +
                                      " has no capacity: a rate in the cluster or profile is zero, "
                                      "negative or not finite");
    }
  }
  return Engine(plan, costs, links, options).run();
}

}  // namespace zs::sim
