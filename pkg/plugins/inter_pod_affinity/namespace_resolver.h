// NamespaceResolver: an incoming pod's affinity terms with every namespaceSelector turned into the
// namespaces it selects (upstream mergeAffinityTermNamespacesIfNotEmpty), kept across cycles.
//
// Pods of one template carry the same terms, and the namespaces change rarely, so a result is
// kept per set of terms until the Namespace lister's version changes: a namespace added, deleted
// or relabelled is seen by the next cycle, as upstream sees it, and a cycle with no change costs
// a key and a lookup instead of matching every namespace against every selector. A lister that
// reports no version is asked every time.
//
// Used by the one scheduling thread (PreFilter, PreScore); not thread-safe. The results are
// immutable and shared, so a cycle state holding one keeps it valid after the cache moves on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "stowage/api/types.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::inter_pod_affinity {

class NamespaceResolver {
 public:
  explicit NamespaceResolver(const framework::Lister<api::Namespace>& namespaces)
      : namespaces_(namespaces) {}

  // terms with their namespaceSelectors resolved; terms itself when none needs it.
  std::shared_ptr<const framework::PodAffinityTerms> Resolve(
      const std::shared_ptr<const framework::PodAffinityTerms>& terms);

 private:
  // Past this many distinct sets of terms the cache starts over; a cluster has few templates.
  static constexpr size_t kCapacity = 256;

  const framework::Lister<api::Namespace>& namespaces_;
  std::optional<uint64_t> version_;  // of the lister when the cache was filled
  std::unordered_map<std::string, std::shared_ptr<const framework::PodAffinityTerms>> cache_;
  std::string key_;  // reused, so a cycle does not allocate for it
};

}  // namespace stowage::plugins::inter_pod_affinity
