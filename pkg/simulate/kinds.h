// Internal to stowage_simulate: the kinds a what-if run holds (every kind the scheduler reads,
// and PriorityClasses for admission), where each lives in the API, and a check that stowage can
// decode an object of it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::simulate {

struct KindInfo {
  std::string_view kind;
  std::string_view prefix;  // "/api/v1", "/apis/apps/v1"
  std::string_view plural;
  bool namespaced;
  Status (*check)(std::string_view json);  // null: not decoded by the scheduler
  std::string Collection() const { return std::string(prefix) + "/" + std::string(plural); }
};

// nullptr for a kind the run does not hold.
const KindInfo* FindKind(std::string_view kind);
// Every kind, for a caller that visits each collection.
const std::vector<KindInfo>& AllKinds();

}  // namespace stowage::simulate
