// Fuzzes the decoders of API objects and lists (pkg/api/decode.h), the first code to read what
// the API server sends. The input is one JSON document, decoded as every kind declared in
// pkg/api/schema (the auth reviews included), as a list of each, and as an error body, so seeds can
// be real objects as the API server writes them. Decoding must answer every input with an object or
// an error; a decoded object's label and node selectors are then compiled, as the plugins compile
// them.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "pkg/api/decode.h"
#include "pkg/api/schema_generated.h"
#include "stowage/api/labels.h"
#include "stowage/api/types.h"

namespace {

using namespace stowage::api;

void CompileSelectors(const Pod& pod) {
  const Affinity* affinity = pod.spec.affinity ? &*pod.spec.affinity : nullptr;
  if (affinity == nullptr) return;
  if (affinity->node_affinity && affinity->node_affinity->required) {
    NodeSelectorMatcher m = NodeSelectorMatcher::Compile(*affinity->node_affinity->required);
    (void)m.Matches(pod.metadata.labels, pod.spec.node_name);
  }
  for (const auto* terms :
       {affinity->pod_affinity ? &affinity->pod_affinity->required : nullptr,
        affinity->pod_anti_affinity ? &affinity->pod_anti_affinity->required : nullptr}) {
    if (terms == nullptr) continue;
    for (const PodAffinityTerm& term : *terms) {
      auto s = Selector::FromLabelSelector(term.label_selector ? &*term.label_selector : nullptr);
      if (!s.ok()) continue;
      (void)s->Matches(pod.metadata.labels);
      (void)s->String();
    }
  }
}

template <typename T>
void DecodeAs(std::string_view json) {
  auto obj = Decode<T>(json);
  auto list = DecodeList<T>(json);
  if constexpr (std::is_same_v<T, Pod>) {
    if (obj.ok()) CompileSelectors(*obj);
    if (list.ok()) {
      for (const auto& p : list->items) CompileSelectors(*p);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
#define STOWAGE_FUZZ_DECODE(T) DecodeAs<T>(json);
  STOWAGE_SCHEMA_KINDS(STOWAGE_FUZZ_DECODE)
#undef STOWAGE_FUZZ_DECODE
  (void)DecodeApiStatus(json, 500);
  return 0;
}
