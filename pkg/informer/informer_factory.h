// InformerFactory: hands out one SharedInformer per (kind, filter), so each kind is listed and
// watched once however many consumers register handlers on it (client-go's
// SharedInformerFactory). Thread-safe. Informers live as long as the factory.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <typeindex>

#include "pkg/client/rest_client.h"
#include "pkg/informer/shared_informer.h"
#include "stowage/common/mutex.h"

namespace stowage::informer {

class InformerFactory {
 public:
  // Informers of a named factory report client-go's informer_* metrics under that name
  // (kube-scheduler's is "kube-scheduler").
  explicit InformerFactory(client::RestClient& client, std::string name = {})
      : client_(client), name_(std::move(name)) {}
  ~InformerFactory() { Stop(); }

  // The informer of kind T with this filter, created on first use. An informer created after
  // Start() is started immediately.
  template <typename T>
  SharedInformer<T>& For(const Filter& filter = {}) {
    MutexLock l(mu_);
    auto key = std::make_pair(std::type_index(typeid(T)), filter.Key());
    auto& slot = informers_[key];
    if (!slot) {
      slot = std::make_unique<SharedInformer<T>>(client_, filter, 500, name_);
      if (started_) slot->Start();
    }
    return static_cast<SharedInformer<T>&>(*slot);
  }

  // Starts every informer created so far (and, from now on, every new one).
  void Start();
  // Stops all informers and waits for their threads.
  void Stop();
  // Waits until every informer has synced; false on timeout.
  bool WaitForCacheSync(Duration timeout);

 private:
  client::RestClient& client_;
  const std::string name_;
  Mutex mu_;
  bool started_ GUARDED_BY(mu_) = false;
  std::map<std::pair<std::type_index, std::string>, std::unique_ptr<InformerBase>> informers_
      GUARDED_BY(mu_);
};

}  // namespace stowage::informer
