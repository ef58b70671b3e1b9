#include "cmd/stowage/app/signal_watcher.h"

#include <cstring>
#include <utility>

#include "pkg/common/logging.h"

namespace stowage::app {

SignalWatcher::SignalWatcher() {
  sigemptyset(&sigs_);
  sigaddset(&sigs_, SIGTERM);
  sigaddset(&sigs_, SIGINT);
  sigaddset(&sigs_, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &sigs_, nullptr);
  thread_ = std::thread([this] {
    for (;;) {
      int sig = 0;
      sigwait(&sigs_, &sig);
      if (sig == SIGUSR2) {
        std::function<void()> debug;
        {
          MutexLock l(mu_);
          debug = on_debug_;
        }
        if (debug) {
          debug();
        } else {
          LOG_INFO("received {} before the caches synced; no cache to compare yet", strsignal(sig));
        }
        continue;
      }
      LOG_INFO("received {}, shutting down", strsignal(sig));
      stop_.request_stop();
      return;
    }
  });
  thread_.detach();  // blocked in sigwait until a signal; the process exit ends it
}

void SignalWatcher::OnDebugSignal(std::function<void()> debug) {
  MutexLock l(mu_);
  on_debug_ = std::move(debug);
}

}  // namespace stowage::app
