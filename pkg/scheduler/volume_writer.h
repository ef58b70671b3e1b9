// ClientVolumeWriter: framework::VolumeWriter over the REST client. Each update is a JSON merge
// patch that carries the object's resourceVersion, so the apiserver refuses it with a Conflict
// when the object changed since the binder read it, as upstream's Update would.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "pkg/client/rest_client.h"
#include "stowage/framework/handle.h"

namespace stowage::scheduler {

// OK unless may_write is set and answers false: then the FailedPrecondition error that a write
// of what is refused with, because this scheduler's lease may have expired.
Status MayWrite(const std::function<bool()>& may_write, std::string_view what);

class ClientVolumeWriter final : public framework::VolumeWriter {
 public:
  // may_write, when set, is asked before each write (see scheduler::Options::may_bind): a
  // leader that may have lost its lease binds no volume either.
  explicit ClientVolumeWriter(client::RestClient& client, std::function<bool()> may_write = {})
      : client_(client), may_write_(std::move(may_write)) {}
  StatusOr<std::shared_ptr<const api::PersistentVolume>> UpdateVolume(
      const api::PersistentVolume& pv) override;
  StatusOr<std::shared_ptr<const api::PersistentVolumeClaim>> UpdateClaim(
      const api::PersistentVolumeClaim& claim) override;

 private:
  client::RestClient& client_;
  const std::function<bool()> may_write_;
};

}  // namespace stowage::scheduler
