// PeerWait (issue 28 items 9 and 20): a rank's own stopped time does not count against the peer
// it waits for, and a long wait says so every 30 s.
#include "exec/peer_wait.h"

#include <gtest/gtest.h>

namespace zs::exec {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(PeerWait, ExpiresAfterTheTimeoutOfRunningTime) {
  const PeerWait::Clock::time_point t0{};
  PeerWait w(t0, 2.0);
  for (int ms = 0; ms <= 1900; ms += 100) {
    w.observe(t0 + milliseconds(ms));
    EXPECT_FALSE(w.expired(t0 + milliseconds(ms))) << ms;
  }
  w.observe(t0 + milliseconds(2100));
  EXPECT_TRUE(w.expired(t0 + milliseconds(2100)));
}

// The rank that was stopped for 10 s (SIGSTOP, then SIGCONT) finds its clock 10 s on: that is
// not its peer's silence, so it does not time out and blame the peer that waited for it.
TEST(PeerWait, TimeThisRankDidNotRunDoesNotCount) {
  const PeerWait::Clock::time_point t0{};
  PeerWait w(t0, 2.0);
  w.observe(t0 + milliseconds(500));
  w.observe(t0 + milliseconds(10500));  // stopped for 10 s
  EXPECT_FALSE(w.expired(t0 + milliseconds(10500)));
  EXPECT_NEAR(w.waited_s(t0 + milliseconds(10500)), 0.5, 1e-9);
  for (int ms = 10600; ms <= 11900; ms += 100) w.observe(t0 + milliseconds(ms));
  EXPECT_FALSE(w.expired(t0 + milliseconds(11900)));
  w.observe(t0 + milliseconds(12100));
  EXPECT_TRUE(w.expired(t0 + milliseconds(12100)));  // 2.1 s of its own running time
}

TEST(PeerWait, SaysSoEveryThirtySeconds) {
  const PeerWait::Clock::time_point t0{};
  PeerWait w(t0, 600.0);
  int lines = 0;
  for (int s = 0; s <= 95; ++s) {
    const auto now = t0 + seconds(s);
    // Looks every 0.5 s (no stall), as a waiting rank looks far more often still.
    w.observe(now - milliseconds(500));
    w.observe(now);
    lines += w.progress_due(now) ? 1 : 0;
  }
  EXPECT_EQ(lines, 3);  // after 31, 62 and 93 s
}

}  // namespace
}  // namespace zs::exec
