// The handle of the DynamicResources tests.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::plugins::dynamic_resources {

// A FakeHandle with the resource.k8s.io listers and a ClaimWriter that records each write and
// answers the claim with a new resourceVersion, as the apiserver does.
class DraHandle final : public stowage::testing::FakeHandle, public framework::ClaimWriter {
 public:
  const framework::Lister<api::ResourceClaim>& resource_claims() override { return claims; }
  const framework::Lister<api::ResourceSlice>& resource_slices() override { return slices; }
  const framework::Lister<api::DeviceClass>& device_classes() override { return classes; }
  framework::ClaimWriter* claim_writer() override { return this; }
  framework::DraMetrics& dra_metrics() override { return metrics; }

  // Records each binding-conditions observation as "profile/driver/status" (+ "wait" when timed).
  struct Metrics final : framework::DraMetrics {
    void BindingConditions(std::string_view profile, std::string_view driver,
                           std::string_view status, std::optional<double> wait) override {
      seen.push_back(std::string(profile) + "/" + std::string(driver) + "/" + std::string(status) +
                     (wait ? " wait" : ""));
    }
    std::vector<std::string> seen;
  } metrics;

  StatusOr<std::shared_ptr<const api::ResourceClaim>> AddClaimFinalizer(
      const api::ResourceClaim& claim, std::string_view finalizer) override {
    finalizers.emplace_back(finalizer);
    api::ResourceClaim with = claim;  // the apiserver answers with the finalizer merged in
    with.metadata.finalizers.emplace_back(finalizer);
    return Answer(with);
  }
  StatusOr<std::shared_ptr<const api::ResourceClaim>> UpdateClaimStatus(
      const api::ResourceClaim& claim) override {
    status_writes.push_back(claim);
    if (conflicts > 0) {  // someone else wrote the claim first
      --conflicts;
      if (on_conflict) on_conflict();
      return AbortedError("Operation cannot be fulfilled on resourceclaims.resource.k8s.io \"" +
                          claim.metadata.name + "\": the object has been modified");
    }
    auto answer = Answer(claim);
    // A claim this handle created is seen by the informer at once.
    if (claim.metadata.uid.starts_with("created-")) claims.Update(*answer);
    return answer;
  }
  // Names the claim from its generateName, and the informer sees it at once.
  StatusOr<std::shared_ptr<const api::ResourceClaim>> CreateClaim(
      const api::ResourceClaim& claim) override {
    created.push_back(claim);
    auto out = std::make_shared<api::ResourceClaim>(*Answer(claim));
    out->metadata.name = claim.metadata.generate_name + "x" + std::to_string(created.size());
    out->metadata.uid = "created-" + std::to_string(created.size());
    claims.Add(*out);
    return std::shared_ptr<const api::ResourceClaim>(out);
  }
  stowage::Status DeleteClaim(const api::ResourceClaim& claim, std::string_view) override {
    deleted.push_back(claim.metadata.namespace_ + "/" + claim.metadata.name);
    claims.Remove(claim.metadata.namespace_, claim.metadata.name);
    return OkStatus();
  }

  stowage::testing::FakeLister<api::ResourceClaim> claims;
  stowage::testing::FakeLister<api::ResourceSlice> slices;
  stowage::testing::FakeLister<api::DeviceClass> classes;
  std::vector<std::string> finalizers;
  std::vector<api::ResourceClaim> status_writes;
  std::vector<api::ResourceClaim> created;
  std::vector<std::string> deleted;  // namespace/name
  // The next `conflicts` status writes fail with 409 Conflict, each after on_conflict runs.
  int conflicts = 0;
  std::function<void()> on_conflict;

 private:
  std::shared_ptr<const api::ResourceClaim> Answer(const api::ResourceClaim& claim) {
    auto out = std::make_shared<api::ResourceClaim>(claim);
    out->metadata.resource_version = std::to_string(++version_);
    return out;
  }
  int version_ = 100;
};

// PostFilter never runs other plugins, so none of these is called.
struct NoRunner final : framework::PluginsRunner {
  framework::Status RunPreFilterExtensionAddPod(framework::CycleState&, const api::Pod&,
                                                const framework::PodInfo&,
                                                const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
  framework::Status RunPreFilterExtensionRemovePod(framework::CycleState&, const api::Pod&,
                                                   const framework::PodInfo&,
                                                   const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
  framework::Status RunFilterPluginsWithNominatedPods(const framework::CycleState&,
                                                      const framework::PodInfo&,
                                                      const framework::NodeInfo&) override {
    return framework::Status::Error("unexpected");
  }
};

}  // namespace stowage::plugins::dynamic_resources
