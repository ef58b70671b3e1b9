// A FakeHandle whose storage listers hold what a test puts in them, for the volume plugins.
#pragma once

#include "pkg/api/types.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"

namespace stowage::testing {

class StorageHandle final : public FakeHandle {
 public:
  FakeLister<api::PersistentVolume> pvs;
  FakeLister<api::PersistentVolumeClaim> pvcs;
  FakeLister<api::StorageClass> classes;
  const framework::Lister<api::PersistentVolume>& persistent_volumes() override { return pvs; }
  const framework::Lister<api::PersistentVolumeClaim>& persistent_volume_claims() override {
    return pvcs;
  }
  const framework::Lister<api::StorageClass>& storage_classes() override { return classes; }
};

}  // namespace stowage::testing
