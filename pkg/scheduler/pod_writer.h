// ClientPodWriter: framework::PodWriter over the scheduler's RestClient, the one way plugins
// reach the API server (binding as upstream's DefaultBinder does, status patches as
// util.PatchPodStatus, deletion as util.DeletePod). Stateless; thread-safe as RestClient is.
#pragma once

#include <functional>

#include "pkg/client/rest_client.h"
#include "stowage/framework/handle.h"

namespace stowage::scheduler {

class ClientPodWriter final : public framework::PodWriter {
 public:
  // may_bind, when set, is asked before each binding and each deletion of a preemption victim
  // (see scheduler::Options::may_bind).
  explicit ClientPodWriter(client::RestClient& client, std::function<bool()> may_bind = {})
      : client_(client), may_bind_(std::move(may_bind)) {}
  stowage::Status Bind(const api::Pod& pod, std::string_view node_name) override;
  stowage::Status PatchPodStatus(const api::Pod& pod, const api::PodStatus& new_status) override;
  stowage::Status DeletePod(const api::Pod& pod) override;

 private:
  client::RestClient& client_;
  const std::function<bool()> may_bind_;
};

}  // namespace stowage::scheduler
