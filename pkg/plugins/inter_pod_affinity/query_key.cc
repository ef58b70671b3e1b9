#include "pkg/plugins/inter_pod_affinity/query_key.h"

namespace stowage::plugins::inter_pod_affinity {

void AppendToKey(std::string& key, std::string_view s) {
  AppendToKey(key, static_cast<int64_t>(s.size()));
  key.append(s);
}

void AppendToKey(std::string& key, int64_t n) {
  key.append(reinterpret_cast<const char*>(&n), sizeof(n));
}

void AppendToKey(std::string& key, const api::Selector& selector) {
  key.push_back(selector.MatchesNothing() ? 'N' : 'S');
  AppendToKey(key, static_cast<int64_t>(selector.requirements().size()));
  for (const api::Requirement& r : selector.requirements()) {
    AppendToKey(key, r.key);
    AppendToKey(key, static_cast<int64_t>(r.op));
    AppendToKey(key, r.number);
    AppendToKey(key, static_cast<int64_t>(r.values.size()));
    for (const std::string& v : r.values) AppendToKey(key, v);
  }
}

void AppendToKey(std::string& key, const framework::AffinityTerm& term) {
  AppendToKey(key, term.selector);
  AppendToKey(key, static_cast<int64_t>(term.namespaces.size()));
  for (const std::string& ns : term.namespaces) AppendToKey(key, ns);
  AppendToKey(key, term.namespace_selector);
  AppendToKey(key, term.topology_key);
}

void AppendToKey(std::string& key, const std::vector<framework::AffinityTerm>& terms) {
  AppendToKey(key, static_cast<int64_t>(terms.size()));
  for (const framework::AffinityTerm& t : terms) AppendToKey(key, t);
}

void AppendToKey(std::string& key, const std::vector<framework::WeightedAffinityTerm>& terms) {
  AppendToKey(key, static_cast<int64_t>(terms.size()));
  for (const framework::WeightedAffinityTerm& t : terms) {
    AppendToKey(key, int64_t{t.weight});
    AppendToKey(key, t.term);
  }
}

void AppendToKey(std::string& key, const api::Pod& pod, const api::StringMap& ns_labels) {
  AppendToKey(key, pod.metadata.namespace_);
  for (const api::StringMap* labels : {&pod.metadata.labels, &ns_labels}) {
    AppendToKey(key, static_cast<int64_t>(labels->size()));
    for (const auto& [k, v] : labels->entries()) {
      AppendToKey(key, k);
      AppendToKey(key, v);
    }
  }
}

}  // namespace stowage::plugins::inter_pod_affinity
