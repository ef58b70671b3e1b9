// A FakeHandle whose storage listers hold what a test puts in them, and the storage objects the
// volume plugins' tests put there.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stowage/api/types.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::testing {

class StorageHandle final : public FakeHandle {
 public:
  FakeLister<api::PersistentVolume> pvs;
  FakeLister<api::PersistentVolumeClaim> pvcs;
  FakeLister<api::StorageClass> classes;
  FakeLister<api::CSIDriver> drivers;
  FakeLister<api::CSIStorageCapacity> capacities;
  FakeLister<api::CSINode> csinodes;
  FakeLister<api::Pod> pod_list;
  framework::VolumeWriter* writer = nullptr;
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override { return pvs; }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return pvcs;
  }
  const framework::Lister<api::StorageClass>& storage_classes() override { return classes; }
  const framework::Lister<api::CSIDriver>& csi_drivers() override { return drivers; }
  const framework::Lister<api::CSINode>& csi_nodes() override { return csinodes; }
  const framework::Lister<api::CSIStorageCapacity>& csi_storage_capacities() override {
    return capacities;
  }
  const framework::Lister<api::Pod>& pods() override { return pod_list; }
  framework::VolumeWriter* volume_writer() override { return writer; }
  framework::VolumeMetrics& volume_metrics() override { return recorder_; }

  // The volume binder's stage errors by operation, in the order they were counted.
  std::vector<std::string> stage_errors() const {
    std::lock_guard<std::mutex> l(recorder_.mu);
    return recorder_.operations;
  }

 private:
  struct Recorder final : framework::VolumeMetrics {
    mutable std::mutex mu;
    std::vector<std::string> operations;
    void StageError(std::string_view operation) override {
      std::lock_guard<std::mutex> l(mu);
      operations.emplace_back(operation);
    }
  };
  Recorder recorder_;
};

// A claim of namespace "default", bound to volume when it is given, of class cls if any.
inline api::PersistentVolumeClaim Claim(std::string name, std::string volume = "",
                                        std::optional<std::string> cls = std::nullopt) {
  api::PersistentVolumeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "default";
  c.volume_name = std::move(volume);
  c.storage_class_name = std::move(cls);
  return c;
}

// A StorageClass with this volumeBindingMode (empty: unset).
inline api::StorageClass Class(std::string name, std::string mode) {
  api::StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.volume_binding_mode = std::move(mode);
  return sc;
}

}  // namespace stowage::testing
