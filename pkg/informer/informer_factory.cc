#include "pkg/informer/informer_factory.h"

#include <thread>

#include "stowage/common/mutex.h"

namespace stowage::informer {

void InformerFactory::Start() {
  MutexLock l(mu_);
  started_ = true;
  for (auto& [key, inf] : informers_) inf->Start();
}

void InformerFactory::Stop() {
  MutexLock l(mu_);
  for (auto& [key, inf] : informers_) inf->Stop();
  started_ = false;
}

bool InformerFactory::WaitForCacheSync(Duration timeout) {
  MonoTime deadline = RealClock().Now() + timeout;
  for (;;) {
    bool all = true;
    {
      MutexLock l(mu_);
      for (auto& [key, inf] : informers_) all = all && inf->HasSynced();
    }
    if (all) return true;
    if (RealClock().Now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace stowage::informer
