// Holding back SIGINT, SIGTERM and SIGHUP while zerosim writes a file, so that an interrupt never
// leaves a temporary file, a half-written output or a mixed set of outputs behind.
//
// While an InterruptGuard lives, those signals are blocked in the calling thread: one that
// arrives stays pending. The writer asks interrupted() between chunks, stops, removes what it had
// started, and lets the guard go; the pending signal then takes effect as it would have (the
// process ends with the signal's status, 130 for SIGINT in a shell). No handler, no global state.
//
// A process-directed signal goes to any thread that does not block it, so threads that run
// while a guard is held (a sweep's workers writing rows) must block the same signals:
// start them inside a guard, whose mask they inherit, or give them a guard of their own.
#pragma once

#include <signal.h>

namespace zs {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Whether SIGINT, SIGTERM or SIGHUP is pending (one arrived while the guard held it) and not
  // ignored (an ignored one will do nothing when the guard lets it go).
  bool interrupted() const;

 private:
  sigset_t previous_;
};

// What InterruptGuard::interrupted() says, for code that does not hold the guard but runs while
// one is held (a collective that waits on a peer while a sweep's files are open): true once
// SIGINT, SIGTERM or SIGHUP is pending and not ignored.
bool interrupt_pending();

}  // namespace zs
