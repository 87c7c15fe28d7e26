// How long a rank has waited for a peer in a collective, not counting time it did not run
// itself: a rank stopped (SIGSTOP, a debugger) or descheduled for longer than kStalled, once it
// runs again, would otherwise find the timeout long past and blame the peer that was waiting for
// it (issue 28 item 20). Also when to say that it is still waiting.
#pragma once

#include <chrono>

namespace zs::exec {

class PeerWait {
 public:
  using Clock = std::chrono::steady_clock;
  // A gap this long between two looks at the clock is time this rank did not run.
  static constexpr Clock::duration kStalled = std::chrono::seconds(1);
  // How often a long wait says so (on stderr).
  static constexpr Clock::duration kProgressEvery = std::chrono::seconds(30);

  PeerWait(Clock::time_point start, double timeout_s)
      : start_(start),
        deadline_(start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(timeout_s))),
        last_(start),
        next_progress_(start + kProgressEvery) {}

  // Called each time the rank looks (between tests of its requests). A gap over kStalled since
  // the last look moves the deadline and the next progress line on by the gap.
  void observe(Clock::time_point now) {
    if (now - last_ > kStalled) {
      deadline_ += now - last_;
      next_progress_ += now - last_;
      stalled_ += now - last_;
    }
    last_ = now;
  }
  bool expired(Clock::time_point now) const { return now > deadline_; }
  // True once per kProgressEvery of waiting; the caller prints.
  bool progress_due(Clock::time_point now) {
    if (now <= next_progress_) return false;
    next_progress_ = now + kProgressEvery;
    return true;
  }
  // Seconds waited while this rank ran.
  double waited_s(Clock::time_point now) const {
    return std::chrono::duration<double>(now - start_ - stalled_).count();
  }

 private:
  Clock::time_point start_;
  Clock::time_point deadline_;
  Clock::time_point last_;
  Clock::time_point next_progress_;
  Clock::duration stalled_{0};
};

}  // namespace zs::exec
