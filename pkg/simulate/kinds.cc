#include "pkg/simulate/kinds.h"

#include <vector>

#include "pkg/api/decode.h"
#include "pkg/client/resources.h"

namespace stowage::simulate {
namespace {

template <typename T>
KindInfo Info() {
  using R = client::ResourceInfo<T>;
  return KindInfo{api::KindName<T>(), R::kPrefix, R::kPlural, R::kNamespaced,
                  [](std::string_view json) { return api::Decode<T>(json).status(); }};
}

}  // namespace

const std::vector<KindInfo>& AllKinds() {
  static const auto* kinds = new std::vector<KindInfo>{
      Info<api::Pod>(),
      Info<api::Node>(),
      Info<api::Namespace>(),
      Info<api::Service>(),
      Info<api::PersistentVolume>(),
      Info<api::PersistentVolumeClaim>(),
      Info<api::ReplicationController>(),
      Info<api::StorageClass>(),
      Info<api::CSINode>(),
      Info<api::CSIDriver>(),
      Info<api::PodDisruptionBudget>(),
      Info<api::ReplicaSet>(),
      Info<api::StatefulSet>(),
      Info<api::CSIStorageCapacity>(),
      Info<api::ResourceSlice>(),
      Info<api::ResourceClaim>(),
      Info<api::ResourceClaimTemplate>(),
      Info<api::VolumeAttachment>(),
      Info<api::DeviceClass>(),
      Info<api::DeviceTaintRule>(),
      Info<api::Lease>(),
      KindInfo{"PriorityClass", "/apis/scheduling.k8s.io/v1", "priorityclasses", false, nullptr},
  };
  return *kinds;
}

const KindInfo* FindKind(std::string_view kind) {
  for (const KindInfo& k : AllKinds()) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

}  // namespace stowage::simulate
