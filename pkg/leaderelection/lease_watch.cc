#include "pkg/leaderelection/lease_watch.h"

#include "pkg/api/encode.h"
#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/common/logging.h"
#include "pkg/leaderelection/lease_lock.h"
#include "stowage/common/backoff.h"

namespace stowage::leaderelection {

LeaseWatch::LeaseWatch(client::RestClient& client, std::string lease_namespace,
                       std::string lease_name,
                       std::function<void(const LeaderElectionRecord&)> on_record)
    : client_(client),
      namespace_(std::move(lease_namespace)),
      name_(std::move(lease_name)),
      on_record_(std::move(on_record)) {}

void LeaseWatch::Start() {
  if (!thread_.joinable()) thread_ = std::jthread([this](std::stop_token s) { Run(s); });
}

void LeaseWatch::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

void LeaseWatch::Run(std::stop_token stop) {
  Backoff backoff(std::chrono::seconds(1), std::chrono::seconds(30), 2.0, 0.5);
  while (!stop.stop_requested()) {
    Status s = ListAndWatch(stop);
    if (stop.stop_requested()) return;
    if (client::IsForbidden(s) || client::IsUnauthorized(s)) {
      // Not a fault: kube-scheduler's own RBAC does not grant it. The refusal's text goes to a
      // higher verbosity, since probes of RBAC read any "forbidden" in the log as a failure.
      LOG_INFO(
          "\"Not watching the lease: this identity may not list and watch it; the standby polls "
          "it every retry period, as kube-scheduler does\" lock={}",
          api::JsonQuote(namespace_ + "/" + name_));
      VLOG(4, "\"Lease watch refused\" lock={} err={}", api::JsonQuote(namespace_ + "/" + name_),
           api::JsonQuote(s.ToString()));
      refused_ = true;
      return;
    }
    if (s.ok()) {
      backoff.Reset();
      continue;  // the server ended the watch: resume from the last version
    }
    if (client::IsGone(s)) {
      resource_version_.clear();
      continue;
    }
    VLOG(2, "\"Lease watch failed, retrying\" lock={} err={}",
         api::JsonQuote(namespace_ + "/" + name_), api::JsonQuote(s.ToString()));
    SleepFor(backoff.Next(), stop);
  }
}

Status LeaseWatch::ListAndWatch(std::stop_token stop) {
  const std::string by_name = "metadata.name=" + name_;
  if (resource_version_.empty()) {
    client::ListOptions l;
    l.namespace_ = namespace_;
    l.field_selector = by_name;
    auto list = client::ListPage<api::Lease>(client_, l);
    if (!list.ok()) return list.status();
    for (const auto& lease : list->items) Deliver(*lease);
    resource_version_ = list->resource_version;
  }
  client::WatchOptions w;
  w.namespace_ = namespace_;
  w.field_selector = by_name;
  w.resource_version = resource_version_;
  w.allow_bookmarks = true;
  w.timeout_seconds = 300;
  return client::WatchObjects<api::Lease>(
      client_, w,
      [this](api::WatchEvent<api::Lease>&& ev) {
        if (!ev.resource_version.empty()) resource_version_ = ev.resource_version;
        if (ev.type == api::WatchEventType::kAdded || ev.type == api::WatchEventType::kModified) {
          Deliver(*ev.object);
        }
        return true;
      },
      stop);
}

void LeaseWatch::Deliver(const api::Lease& lease) {
  auto record = LeaseRecord(lease);
  if (record.ok()) on_record_(*record);
}

}  // namespace stowage::leaderelection
