#include "pkg/leaderelection/lease_watch.h"

#include "pkg/api/encode.h"
#include "pkg/common/logging.h"
#include "pkg/leaderelection/lease_lock.h"

namespace stowage::leaderelection {

LeaseWatch::LeaseWatch(client::RestClient& client, const std::string& lease_namespace,
                       const std::string& lease_name,
                       std::function<void(const LeaderElectionRecord&)> on_record)
    : desc_(lease_namespace + "/" + lease_name) {
  informer::Filter filter;
  filter.namespace_ = lease_namespace;
  filter.field_selector = "metadata.name=" + lease_name;
  // One object: no pages, and no informer_* series (those name the scheduler's informers).
  informer_ = std::make_unique<informer::SharedInformer<api::Lease>>(client, filter, 0);
  auto handler = std::make_shared<informer::FuncHandler<api::Lease>>();
  auto deliver = [this, on_record = std::move(on_record)](const auto& lease) {
    auto record = LeaseRecord(*lease);
    if (!record.ok()) {
      VLOG(2, "\"Skipping a lease version the watch could not read\" lock={} err={}",
           api::JsonQuote(desc_), api::JsonQuote(record.status().ToString()));
      return;
    }
    on_record(*record);
  };
  handler->add = [deliver](const auto& lease, bool) { deliver(lease); };
  handler->update = [deliver](const auto&, const auto& lease) { deliver(lease); };
  informer_->AddEventHandler(std::move(handler));
}

LeaseWatch::~LeaseWatch() { Stop(); }

void LeaseWatch::Start() { informer_->Start(); }

void LeaseWatch::Stop() { informer_->Stop(); }

}  // namespace stowage::leaderelection
