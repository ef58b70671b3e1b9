#include "pkg/informer/shared_informer.h"

#include <cctype>
#include <random>
#include <unordered_map>
#include <unordered_set>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "stowage/common/backoff.h"
#include "stowage/common/mutex.h"

namespace stowage::informer {

namespace {

// client-go's InformerNameAndResource labels: the group and version of the kind's API prefix and
// the lower-case kind plus "s" (informer-gen's naive plural, so "storageclasss").
template <typename T>
metrics::InformerId IdOf(std::string_view name) {
  std::string_view prefix = client::ResourceInfo<T>::kPrefix;  // "/api/v1", "/apis/apps/v1"
  metrics::InformerId id{std::string(name), "", "", ""};
  size_t last = prefix.rfind('/');
  id.version = std::string(prefix.substr(last + 1));
  if (prefix.rfind("/apis/", 0) == 0) id.group = std::string(prefix.substr(6, last - 6));
  for (char c : api::KindName<T>()) id.resource += static_cast<char>(std::tolower(c));
  id.resource += 's';
  return id;
}

double SecondsSince(MonoTime start) {
  return std::chrono::duration<double>(RealClock().Now() - start).count();
}

}  // namespace

template <typename T>
SharedInformer<T>::SharedInformer(client::RestClient& client, Filter filter, int64_t page_size,
                                  std::string_view name)
    : client_(client), filter_(std::move(filter)), page_size_(page_size) {
  if (!name.empty()) metrics_ = std::make_unique<metrics::InformerMetrics>(IdOf<T>(name));
}

template <typename T>
void SharedInformer<T>::AddEventHandler(std::shared_ptr<EventHandler<T>> handler) {
  MutexLock l(dispatch_mu_);
  for (const Ptr& obj : store_.List()) handler->OnAdd(obj, true);
  handlers_.push_back(std::move(handler));
}

template <typename T>
void SharedInformer<T>::Start() {
  if (thread_.joinable()) return;
  thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
}

template <typename T>
void SharedInformer<T>::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  pause_cv_.SignalAll();
  thread_.join();
}

template <typename T>
bool SharedInformer<T>::WaitForSync(Duration timeout) const {
  MonoTime deadline = RealClock().Now() + timeout;
  while (!HasSynced()) {
    if (RealClock().Now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

template <typename T>
std::string SharedInformer<T>::LastResourceVersion() const {
  MutexLock l(mu_);
  return resource_version_;
}

template <typename T>
void SharedInformer<T>::SetResourceVersion(std::string rv) {
  MutexLock l(mu_);
  resource_version_ = std::move(rv);
}

template <typename T>
void SharedInformer<T>::PauseForTest() {
  MutexLock l(mu_);
  paused_ = true;
  if (watch_stop_) watch_stop_->request_stop();
}

template <typename T>
void SharedInformer<T>::ResumeForTest() {
  {
    MutexLock l(mu_);
    paused_ = false;
  }
  pause_cv_.SignalAll();
}

template <typename T>
void SharedInformer<T>::WaitIfPaused(std::stop_token stop) {
  MutexLock l(mu_);
  while (paused_ && !stop.stop_requested()) pause_cv_.Wait(mu_, stop);
}

template <typename T>
void SharedInformer<T>::Dispatch(const std::function<void(EventHandler<T>&)>& f) {
  for (auto& h : handlers_) f(*h);
}

template <typename T>
void SharedInformer<T>::Run(std::stop_token stop) {
  Backoff backoff(std::chrono::milliseconds(800), std::chrono::seconds(30), 2.0, 0.5);
  bool need_list = true;
  while (!stop.stop_requested()) {
    if (need_list) {
      Status s = ListAndReplace(stop);
      if (stop.stop_requested()) break;
      if (!s.ok()) {
        LOG_WARN("informer {}: list failed, retrying: {}", api::KindName<T>(), s.ToString());
        SleepFor(backoff.Next(), stop);
        continue;
      }
      need_list = false;
    }
    WaitIfPaused(stop);
    if (stop.stop_requested()) break;
    Status s = Watch(stop);
    if (stop.stop_requested()) break;
    if (s.ok()) {
      backoff.Reset();
      continue;  // the server ended the watch (timeout): resume from the last version
    }
    if (client::IsGone(s)) {
      VLOG(2, "informer {}: {}; listing again", api::KindName<T>(), s.message());
      need_list = true;
      continue;
    }
    LOG_WARN("informer {}: watch failed, retrying: {}", api::KindName<T>(), s.ToString());
    SleepFor(backoff.Next(), stop);
  }
}

template <typename T>
Status SharedInformer<T>::ListAndReplace(std::stop_token stop) {
  client::ListOptions o;
  o.namespace_ = filter_.namespace_;
  o.label_selector = filter_.label_selector;
  o.field_selector = filter_.field_selector;
  o.whole_objects = filter_.whole_objects;
  o.limit = page_size_;
  std::vector<Ptr> items;
  std::string list_rv;
  // A loop whose `continue` (after an expired token) really requests the first page again; in
  // a do-while it tested the cleared token and ended the list with no objects.
  for (;;) {
    auto page = client::ListPage<T>(client_, o);
    if (stop.stop_requested()) return CancelledError("stopped");
    if (!page.ok()) {
      // An expired continue token means the snapshot is gone: start the list over.
      if (client::IsGone(page.status()) && !o.continue_token.empty()) {
        o.continue_token.clear();
        items.clear();
        continue;
      }
      return page.status();
    }
    list_rv = page->resource_version;
    items.insert(items.end(), std::make_move_iterator(page->items.begin()),
                 std::make_move_iterator(page->items.end()));
    o.continue_token = std::move(page->continue_token);
    if (o.continue_token.empty()) break;
  }
  list_count_.fetch_add(1);

  std::vector<std::string> keys;
  keys.reserve(items.size());
  std::unordered_set<std::string> fresh;
  fresh.reserve(items.size());
  for (const auto& obj : items) {
    keys.push_back(api::NamespacedName(obj->metadata));
    fresh.insert(keys.back());
  }

  MutexLock l(dispatch_mu_);
  MonoTime start = RealClock().Now();
  bool initial = !synced_.load(std::memory_order_relaxed);
  for (const std::string& key : store_.Keys()) {
    if (fresh.count(key)) continue;
    Ptr gone = store_.Remove(key);
    if (gone) Dispatch([&](EventHandler<T>& h) { h.OnDelete(gone, true); });
  }
  // Deletions first, then the objects in the order the apiserver listed them, as client-go's
  // RealFIFO replays a list: handlers (the scheduling queue) see equal pods in list order.
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& key = keys[i];
    const Ptr& obj = items[i];
    Ptr prev = store_.Upsert(key, obj);
    if (!prev) {
      Dispatch([&](EventHandler<T>& h) { h.OnAdd(obj, initial); });
    } else if (prev->metadata.resource_version != obj->metadata.resource_version) {
      Dispatch([&](EventHandler<T>& h) { h.OnUpdate(prev, obj); });
    }
  }
  SetResourceVersion(list_rv);
  if (metrics_) {
    metrics_->SetStoreResourceVersion(list_rv);
    metrics_->ObserveProcessing(SecondsSince(start));
  }
  synced_.store(true, std::memory_order_release);
  VLOG(2, "informer {}: listed {} objects at resourceVersion {}", api::KindName<T>(), items.size(),
       list_rv);
  return OkStatus();
}

template <typename T>
Status SharedInformer<T>::Watch(std::stop_token stop) {
  auto watch_stop = std::make_unique<std::stop_source>();
  std::stop_token watch_token = watch_stop->get_token();
  std::stop_callback forward(stop, [src = watch_stop.get()] { src->request_stop(); });
  {
    // Checked under the lock PauseForTest takes, so a pause cannot slip in unnoticed.
    MutexLock l(mu_);
    if (paused_) return OkStatus();
    watch_stop_ = std::move(watch_stop);
  }
  client::WatchOptions o;
  o.namespace_ = filter_.namespace_;
  o.label_selector = filter_.label_selector;
  o.field_selector = filter_.field_selector;
  o.whole_objects = filter_.whole_objects;
  o.resource_version = LastResourceVersion();
  o.allow_bookmarks = true;
  // Spread the watches' ends over 5-10 minutes so informers do not reconnect in lockstep.
  thread_local std::minstd_rand rng(std::random_device{}());
  o.timeout_seconds = 300 + static_cast<int>(rng() % 300);

  auto on_event = [&](api::WatchEvent<T>&& ev) {
    if (!ev.resource_version.empty()) SetResourceVersion(ev.resource_version);
    if (ev.type == api::WatchEventType::kBookmark) return true;
    std::string key = api::NamespacedName(ev.object->metadata);
    MutexLock l(dispatch_mu_);
    MonoTime start = RealClock().Now();
    if (ev.type == api::WatchEventType::kDeleted) {
      Ptr prev = store_.Remove(key);
      if (prev) Dispatch([&](EventHandler<T>& h) { h.OnDelete(ev.object, false); });
    } else if (Ptr prev = store_.Upsert(key, ev.object)) {
      Dispatch([&](EventHandler<T>& h) { h.OnUpdate(prev, ev.object); });
    } else {
      Dispatch([&](EventHandler<T>& h) { h.OnAdd(ev.object, false); });
    }
    if (metrics_) {
      metrics_->SetStoreResourceVersion(ev.object->metadata.resource_version);
      metrics_->ObserveProcessing(SecondsSince(start));
    }
    return true;
  };
  Status s = client::WatchObjects<T>(client_, o, on_event, watch_token);
  MutexLock l(mu_);
  watch_stop_.reset();
  return s;
}

template class SharedInformer<api::Pod>;
template class SharedInformer<api::Node>;
template class SharedInformer<api::PersistentVolume>;
template class SharedInformer<api::PersistentVolumeClaim>;
template class SharedInformer<api::StorageClass>;
template class SharedInformer<api::CSINode>;
template class SharedInformer<api::CSIDriver>;
template class SharedInformer<api::PodDisruptionBudget>;
template class SharedInformer<api::Namespace>;
template class SharedInformer<api::Service>;
template class SharedInformer<api::ReplicaSet>;
template class SharedInformer<api::StatefulSet>;
template class SharedInformer<api::ReplicationController>;
template class SharedInformer<api::Lease>;
template class SharedInformer<api::CSIStorageCapacity>;
template class SharedInformer<api::ResourceSlice>;
template class SharedInformer<api::ResourceClaim>;
template class SharedInformer<api::ResourceClaimTemplate>;
template class SharedInformer<api::DeviceClass>;
template class SharedInformer<api::DeviceTaintRule>;
template class SharedInformer<api::VolumeAttachment>;

}  // namespace stowage::informer
