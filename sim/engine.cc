#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>

#include "common/check.h"

namespace zs::sim {
namespace {

using plan::Plan;

std::int64_t to_ns(double seconds) { return static_cast<std::int64_t>(std::llround(seconds * 1e9)); }

enum class EventKind : std::uint8_t { kHostIssue, kOpEnd, kFlowStart, kLinkCheck };

struct Event {
  std::int64_t t = 0;
  std::uint64_t seq = 0;
  EventKind kind = EventKind::kHostIssue;
  int id = 0;
  std::uint64_t version = 0;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Flow {
  int op = 0;
  double remaining = 0;
  double cap = 0;
  double rate = 0;
};

struct LinkState {
  double capacity = 0;
  std::vector<Flow> flows;
  std::int64_t updated_ns = 0;
  std::uint64_t version = 0;
};

enum class OpState : std::uint8_t { kPending, kQueued, kRunning, kDone };

class Engine {
 public:
  Engine(const Plan& plan, const std::vector<OpCost>& costs, const std::vector<Link>& links,
         const EngineOptions& options)
      : plan_(plan), costs_(costs), options_(options), n_(static_cast<int>(plan.ops.size())),
        state_(n_, OpState::kPending), not_before_(n_, 0), dep_cursor_(n_, 0),
        queues_(plan.streams.size()), running_(plan.streams.size(), -1) {
    ZS_CHECK(costs.size() == plan.ops.size());
    for (const Link& l : links) links_.push_back(LinkState{l.capacity, {}, 0, 0});
    if (options.record) result_.ops.assign(n_, OpTime{});
  }

  EngineResult run() {
    for (const plan::Segment& seg : plan_.segments) {
      if (seg.end_op == seg.first_op) {
        result_.segments.push_back(SegmentTime{host_t_, 0, seg.repeat});
        continue;
      }
      if (seg.repeat > 1 && in_flight_ > 0) drain();
      const std::int64_t start = host_t_;
      issue_range(seg.first_op, seg.end_op);
      if (seg.repeat > 1) {
        const std::int64_t host_done = host_t_;
        drain();
        if (host_t_ > host_done) result_.drained_repeats += seg.repeat - 1;
        const std::int64_t period = host_t_ - start;
        host_t_ += (seg.repeat - 1) * period;
        now_ = host_t_;
        result_.segments.push_back(SegmentTime{start, period, seg.repeat});
      } else {
        result_.segments.push_back(SegmentTime{start, 0, 1});
      }
    }
    drain();
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
  void push(std::int64_t t, EventKind kind, int id, std::uint64_t version = 0) {
    heap_.push(Event{t, seq_++, kind, id, version});
  }

  // Issues ops [first, end) and runs events until the host has issued them all.
  void issue_range(int first, int end) {
    next_ = first;
    end_issue_ = end;
    if (host_blocked_on_ < 0) push(host_t_, EventKind::kHostIssue, 0);
    while (next_ < end_issue_ || host_blocked_on_ >= 0) {
      ZS_CHECK(!heap_.empty());
      step();
    }
  }

  // Runs until nothing is in flight; the host resumes when the last op finishes.
  void drain() {
    while (!heap_.empty()) step();
    ZS_CHECK(in_flight_ == 0);
    host_t_ = std::max(host_t_, now_);
  }

  void step() {
    const Event e = heap_.top();
    heap_.pop();
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
        link_check(e.id, e.version, e.t);
        break;
    }
  }

  void host_issue(std::int64_t t) {
    if (next_ >= end_issue_) return;
    const int i = next_++;
    const plan::Op& op = plan_.ops[i];
    const std::int64_t host_s = to_ns(costs_[i].host_s);
    state_[i] = OpState::kQueued;
    ++in_flight_;
    not_before_[i] = t + host_s;
    if (options_.record) result_.ops[i].issue_ns = t;
    queues_[op.stream].push_back(i);
    host_t_ = t + host_s;
    const bool waits = op.host_waits || plan_.streams[op.stream].kind == plan::StreamKind::kCpu;
    if (waits) host_blocked_on_ = i;
    try_start(op.stream, t);
    if (!waits && next_ < end_issue_) push(host_t_, EventKind::kHostIssue, 0);
  }

  bool deps_done(int i) {
    const plan::Op& op = plan_.ops[i];
    const auto deps = plan_.deps(op);
    int& c = dep_cursor_[i];
    while (c < static_cast<int>(deps.size()) && state_[deps[c]] == OpState::kDone) ++c;
    return c == static_cast<int>(deps.size());
  }

  void try_start(int stream, std::int64_t t) {
    if (running_[stream] >= 0 || queues_[stream].empty()) return;
    const int i = queues_[stream].front();
    if (!deps_done(i)) return;
    queues_[stream].pop_front();
    running_[stream] = i;
    state_[i] = OpState::kRunning;
    if (options_.record) result_.ops[i].start_ns = t;
    const plan::Op& op = plan_.ops[i];
    const OpCost& c = costs_[i];
    const bool skipped = options_.overflow && op.skipped_on_overflow;
    if (!skipped && c.link >= 0 && c.link_amount > 0) {
      push(t + to_ns(c.fixed_s), EventKind::kFlowStart, i);
    } else {
      const std::int64_t dur = skipped ? 0 : to_ns(c.fixed_s);
      push(std::max(t + dur, skipped ? t : not_before_[i]), EventKind::kOpEnd, i);
    }
  }

  void finish(int i, std::int64_t t) {
    const plan::Op& op = plan_.ops[i];
    state_[i] = OpState::kDone;
    --in_flight_;
    if (options_.record) result_.ops[i].end_ns = t;
    running_[op.stream] = -1;
    for (int s = 0; s < static_cast<int>(queues_.size()); ++s) try_start(s, t);
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
    ++l.version;
    if (l.flows.empty()) return;
    order_.resize(l.flows.size());
    for (std::size_t k = 0; k < order_.size(); ++k) order_[k] = static_cast<int>(k);
    std::sort(order_.begin(), order_.end(), [&](int a, int b) {
      return l.flows[a].cap != l.flows[b].cap ? l.flows[a].cap < l.flows[b].cap : a < b;
    });
    double left = l.capacity;
    std::size_t n = order_.size();
    for (int k : order_) {
      Flow& f = l.flows[k];
      f.rate = std::min(f.cap, left / static_cast<double>(n));
      left -= f.rate;
      --n;
    }
    double soonest = -1;
    for (const Flow& f : l.flows) {
      const double s = std::max(f.remaining, 0.0) / f.rate;
      if (soonest < 0 || s < soonest) soonest = s;
    }
    push(t + std::max<std::int64_t>(static_cast<std::int64_t>(std::ceil(soonest * 1e9)), 0),
         EventKind::kLinkCheck, link, l.version);
  }

  void flow_start(int i, std::int64_t t) {
    const OpCost& c = costs_[i];
    LinkState& l = links_[c.link];
    advance(l, t);
    l.flows.push_back(Flow{i, c.link_amount, c.rate_cap > 0 ? c.rate_cap : l.capacity, 0});
    if (options_.record) result_.ops[i].flow_start_ns = t;
    rebalance(c.link, t);
  }

  void link_check(int link, std::uint64_t version, std::int64_t t) {
    LinkState& l = links_[link];
    if (version != l.version) return;
    advance(l, t);
    done_.clear();
    for (std::size_t k = 0; k < l.flows.size();) {
      const Flow& f = l.flows[k];
      // Finished, up to the nanosecond rounding of the check's time.
      if (f.remaining <= f.rate * 1e-9 + 1e-9) {
        done_.push_back(f.op);
        l.flows.erase(l.flows.begin() + static_cast<std::ptrdiff_t>(k));
      } else {
        ++k;
      }
    }
    rebalance(link, t);
    for (int op : done_) push(std::max(t, not_before_[op]), EventKind::kOpEnd, op);
  }

  const Plan& plan_;
  const std::vector<OpCost>& costs_;
  EngineOptions options_;
  int n_;
  std::vector<OpState> state_;
  std::vector<std::int64_t> not_before_;
  std::vector<int> dep_cursor_;
  std::vector<std::deque<int>> queues_;
  std::vector<int> running_;
  std::vector<LinkState> links_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> heap_;
  std::uint64_t seq_ = 0;
  std::int64_t now_ = 0;
  std::int64_t host_t_ = 0;
  int host_blocked_on_ = -1;
  int next_ = 0;
  int end_issue_ = 0;
  int in_flight_ = 0;
  std::vector<int> order_;
  std::vector<int> done_;
  EngineResult result_;
};

}  // namespace

EngineResult run_engine(const plan::Plan& plan, const std::vector<OpCost>& costs,
                        const std::vector<Link>& links, const EngineOptions& options) {
  for (const OpCost& c : costs) ZS_CHECK(c.link < static_cast<int>(links.size()));
  return Engine(plan, costs, links, options).run();
}

}  // namespace zs::sim
