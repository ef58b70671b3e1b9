#include "pkg/informer/informer_factory.h"

#include <thread>

namespace stowage::informer {

void InformerFactory::Start() {
  std::lock_guard<std::mutex> l(mu_);
  started_ = true;
  for (auto& [key, inf] : informers_) inf->Start();
}

void InformerFactory::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [key, inf] : informers_) inf->Stop();
  started_ = false;
}

bool InformerFactory::WaitForCacheSync(Duration timeout) {
  MonoTime deadline = RealClock().Now() + timeout;
  for (;;) {
    bool all = true;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [key, inf] : informers_) all = all && inf->HasSynced();
    }
    if (all) return true;
    if (RealClock().Now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace stowage::informer
