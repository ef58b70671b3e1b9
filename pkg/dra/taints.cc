#include "pkg/dra/taints.h"

namespace stowage::dra {

bool ToleratesTaint(const api::DeviceToleration& toleration, const api::DeviceTaint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return toleration.op == "Exists";
}

bool TaintPreventsAllocation(const api::Device& device,
                             const std::vector<api::DeviceToleration>& tolerations) {
  for (const auto& taint : device.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    for (const auto& toleration : tolerations) {
      if (ToleratesTaint(toleration, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return true;
  }
  return false;
}

api::ResourceSlice ApplyDeviceTaintRules(const api::ResourceSlice& slice,
                                         const std::vector<api::DeviceTaintRule>& rules) {
  api::ResourceSlice out = slice;
  for (const auto& rule : rules) {
    if (rule.driver && *rule.driver != slice.driver) continue;
    if (rule.pool && *rule.pool != slice.pool_name) continue;
    for (auto& device : out.devices) {
      if (rule.device && *rule.device != device.name) continue;
      device.taints.push_back(rule.taint);
    }
  }
  return out;
}

}  // namespace stowage::dra
