#include "stowage/plugins/helper/storage.h"

namespace stowage::plugins::helper {

std::string ClaimClass(const api::PersistentVolumeClaim& pvc) {
  if (const std::string* c = pvc.metadata.annotations.Get(kAnnBetaStorageClass)) return *c;
  return pvc.storage_class_name.value_or("");
}

}  // namespace stowage::plugins::helper
