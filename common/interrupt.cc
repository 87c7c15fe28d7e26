#include "common/interrupt.h"

#include <pthread.h>

#include <initializer_list>

#include "common/check.h"

namespace zs {
namespace {

sigset_t held_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  const sigset_t set = held_signals();
  ZS_CHECK(pthread_sigmask(SIG_BLOCK, &set, &previous_) == 0);
}

InterruptGuard::~InterruptGuard() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

bool InterruptGuard::interrupted() const { return interrupt_pending(); }

bool interrupt_pending() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    if (sigismember(&pending, sig) != 1) continue;
    // An ignored signal (SIGINT in a background job of a script, SIGHUP under nohup) pends while
    // blocked but does nothing once unblocked: it is no interrupt.
    struct sigaction action {};
    if (sigaction(sig, nullptr, &action) == 0 && action.sa_handler == SIG_IGN) continue;
    return true;
  }
  return false;
}

}  // namespace zs
