// SharedInformer<T>: keeps a Store of one kind in step with the API server and tells handlers
// about every change, the C++ counterpart of client-go's SharedIndexInformer + Reflector.
//
// The reflector lists (paginated, a consistent read) and then watches from the list's resource
// version with bookmarks, resuming from the last version it saw when a watch ends. When the
// server answers 410 Gone (the version was compacted away) it lists again and reconciles the
// store with the new list: objects missing from it are delivered as deletions
// (final_state_unknown), new ones as adds, changed ones as updates and unchanged ones not at
// all, so no object is lost or duplicated across the gap. Failures back off exponentially
// (0.8 s to 30 s) and the informer keeps trying until stopped.
//
// Thread-safety: all public methods may be called from any thread. Handlers run on the
// informer's thread, serialised, while the store reflects the change being delivered.
#pragma once

#include <atomic>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/informer/event_handler.h"
#include "pkg/informer/store.h"
#include "pkg/metrics/informer.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::informer {

// What an informer watches: a namespace (empty: all) and label / field selectors; and, for Pods
// and Nodes, whether it keeps each object whole for extenders (client::ListOptions).
struct Filter {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  bool whole_objects = false;
  std::string Key() const {
    return namespace_ + "|" + label_selector + "|" + field_selector +
           (whole_objects ? "|whole" : "");
  }
};

// The kind-independent face of an informer, for the factory.
class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void Start() = 0;
  virtual void Stop() = 0;
  virtual bool HasSynced() const = 0;
};

template <typename T>
class SharedInformer : public InformerBase {
 public:
  using Ptr = std::shared_ptr<const T>;

  // A non-empty name (the factory's) gives the informer client-go's informer_* series.
  SharedInformer(client::RestClient& client, Filter filter, int64_t page_size = 500,
                 std::string_view name = {});
  ~SharedInformer() override { Stop(); }

  // Registers a handler. If the informer already holds objects, the handler first receives
  // them as adds (in_initial_list = true), so it never misses or doubles an object.
  void AddEventHandler(std::shared_ptr<EventHandler<T>> handler);

  // Starts the informer's thread; idempotent.
  void Start() override;
  // Stops the thread and waits for it; idempotent.
  void Stop() override;
  // True once the first list has been delivered to the store and the handlers.
  bool HasSynced() const override { return synced_.load(std::memory_order_acquire); }
  // Waits for HasSynced; false if it did not happen within timeout.
  bool WaitForSync(Duration timeout) const;

  const Store<T>& store() const { return store_; }
  // The last resource version seen (list, event or bookmark).
  std::string LastResourceVersion() const;

  // Test hooks. PauseForTest ends the current watch and holds the informer before its next
  // watch; ResumeForTest releases it to watch again from the last version it saw.
  void PauseForTest();
  void ResumeForTest();
  // How many lists the informer has made (1 after the first sync).
  int ListCountForTest() const { return list_count_.load(); }

 private:
  void Run(std::stop_token stop);
  Status ListAndReplace(std::stop_token stop);
  Status Watch(std::stop_token stop);
  void Dispatch(const std::function<void(EventHandler<T>&)>& f) REQUIRES(dispatch_mu_);
  void WaitIfPaused(std::stop_token stop);
  void SetResourceVersion(std::string rv);

  client::RestClient& client_;
  const Filter filter_;
  const int64_t page_size_;
  Store<T> store_;
  std::atomic<bool> synced_{false};
  std::atomic<int> list_count_{0};
  std::unique_ptr<metrics::InformerMetrics> metrics_;  // null for an unnamed informer

  // Held while the store changes and the change is delivered, and while a handler is added.
  Mutex dispatch_mu_;
  std::vector<std::shared_ptr<EventHandler<T>>> handlers_ GUARDED_BY(dispatch_mu_);

  mutable Mutex mu_;
  std::string resource_version_ GUARDED_BY(mu_);
  bool paused_ GUARDED_BY(mu_) = false;
  CondVarAny pause_cv_;
  std::unique_ptr<std::stop_source> watch_stop_ GUARDED_BY(mu_);
  std::jthread thread_;
};

}  // namespace stowage::informer
