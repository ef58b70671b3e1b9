// ClientClaimWriter: framework::ClaimWriter over the REST client. Each write is a patch that
// carries the claim's resourceVersion, so the apiserver refuses it with a Conflict when the claim
// changed since the plugin read it, as upstream's Update and UpdateStatus would.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "pkg/client/rest_client.h"
#include "stowage/framework/handle.h"

namespace stowage::scheduler {

class ClientClaimWriter final : public framework::ClaimWriter {
 public:
  // may_write, when set, is asked before each write (see scheduler::Options::may_bind): a
  // leader that may have lost its lease allocates no device either.
  explicit ClientClaimWriter(client::RestClient& client, std::function<bool()> may_write = {})
      : client_(client), may_write_(std::move(may_write)) {}
  StatusOr<std::shared_ptr<const api::ResourceClaim>> AddClaimFinalizer(
      const api::ResourceClaim& claim, std::string_view finalizer) override;
  StatusOr<std::shared_ptr<const api::ResourceClaim>> UpdateClaimStatus(
      const api::ResourceClaim& claim) override;
  StatusOr<std::shared_ptr<const api::ResourceClaim>> CreateClaim(
      const api::ResourceClaim& claim) override;
  Status DeleteClaim(const api::ResourceClaim& claim, std::string_view finalizer) override;

 private:
  client::RestClient& client_;
  const std::function<bool()> may_write_;
};

}  // namespace stowage::scheduler
