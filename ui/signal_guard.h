// SIGINT and SIGTERM caught for the life of a scope (`x86lab run`, the inspector's frame
// loop): `handler` runs on the first of them; the second acts as if none were caught
// (SA_RESETHAND: Ctrl-C twice kills at once). The handlers before are restored at the
// end of the scope. POSIX sigaction.
#pragma once
#include <signal.h>

namespace x86lab {

class SignalGuard {
 public:
  // `handler` must be async-signal-safe (atomic stores only).
  explicit SignalGuard(void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

}  // namespace x86lab
