// The keys that name NodeCountsMemo's queries: byte strings, each part length-prefixed, so two
// keys are equal only when every part is (equal queries may still get different keys, which
// costs a recomputation, never a wrong answer).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/api/labels.h"
#include "stowage/api/types.h"
#include "stowage/framework/types.h"

namespace stowage::plugins::inter_pod_affinity {

void AppendToKey(std::string& key, std::string_view s);
void AppendToKey(std::string& key, int64_t n);
void AppendToKey(std::string& key, const api::Selector& selector);
void AppendToKey(std::string& key, const framework::AffinityTerm& term);
void AppendToKey(std::string& key, const std::vector<framework::AffinityTerm>& terms);
void AppendToKey(std::string& key, const std::vector<framework::WeightedAffinityTerm>& terms);
// What matching a pod against terms reads: its namespace, its labels, and its namespace's labels.
void AppendToKey(std::string& key, const api::Pod& pod, const api::StringMap& ns_labels);

}  // namespace stowage::plugins::inter_pod_affinity
