// Builders of API objects for tests, in the style of upstream's scheduler testing wrappers:
//   MakePod().Namespace("ns").Name("p").Req("cpu", "100m").Json()
// and helpers that create them in a cluster.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/common/status.h"

namespace stowage::testing {

class PodBuilder {
 public:
  PodBuilder& Namespace(std::string ns) { ns_ = std::move(ns); return *this; }
  PodBuilder& Name(std::string name) { name_ = std::move(name); return *this; }
  PodBuilder& SchedulerName(std::string s) { scheduler_ = std::move(s); return *this; }
  PodBuilder& Label(std::string k, std::string v) { labels_[std::move(k)] = std::move(v); return *this; }
  PodBuilder& Req(std::string resource, std::string quantity) {
    requests_[std::move(resource)] = std::move(quantity);
    return *this;
  }
  PodBuilder& Node(std::string node) { node_ = std::move(node); return *this; }
  PodBuilder& Priority(int32_t p) { priority_ = p; return *this; }
  PodBuilder& Toleration(std::string key, std::string value, std::string effect) {
    tolerations_.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  // Required node affinity: label key In values.
  PodBuilder& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    affinity_key_ = std::move(key);
    affinity_values_ = std::move(values);
    return *this;
  }
  PodBuilder& HostPort(int32_t port) { host_port_ = port; return *this; }
  const std::string& ns() const { return ns_; }
  std::string Json() const;

 private:
  std::string ns_ = "default";
  std::string name_;
  std::string scheduler_;
  std::string node_;
  std::map<std::string, std::string> labels_;
  std::map<std::string, std::string> requests_;
  std::optional<int32_t> priority_;
  std::vector<std::vector<std::string>> tolerations_;
  std::string affinity_key_;
  std::vector<std::string> affinity_values_;
  int32_t host_port_ = 0;
};
inline PodBuilder MakePod() { return PodBuilder(); }

class NodeBuilder {
 public:
  NodeBuilder& Name(std::string name) { name_ = std::move(name); return *this; }
  NodeBuilder& Label(std::string k, std::string v) { labels_[std::move(k)] = std::move(v); return *this; }
  NodeBuilder& Capacity(std::string resource, std::string quantity) {
    capacity_[std::move(resource)] = std::move(quantity);
    return *this;
  }
  NodeBuilder& Taint(std::string key, std::string value, std::string effect) {
    taints_.push_back({std::move(key), std::move(value), std::move(effect)});
    return *this;
  }
  // A Ready node with capacity = allocatable (4 CPU, 32Gi, 110 pods unless overridden).
  std::string Json() const;

 private:
  std::string name_;
  std::map<std::string, std::string> labels_;
  std::map<std::string, std::string> capacity_ = {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}};
  std::vector<std::vector<std::string>> taints_;
};
inline NodeBuilder MakeNode() { return NodeBuilder(); }

// Creates a namespace; succeeds if it already exists.
Status EnsureNamespace(client::RestClient& c, const std::string& name);
Status CreatePod(client::RestClient& c, const PodBuilder& pod);
Status CreateNode(client::RestClient& c, const NodeBuilder& node);
// Creates the pods from `threads` threads; returns the first error.
Status CreatePods(client::RestClient& c, const std::vector<PodBuilder>& pods, int threads = 4);
// Creates count pods named <prefix>-<i> in ns, from `threads` threads.
Status CreatePods(client::RestClient& c, const std::string& ns, const std::string& prefix,
                  int count, int threads = 4);
// Deletes a pod immediately (grace period 0: there is no kubelet to finish a graceful delete).
Status DeletePod(client::RestClient& c, const std::string& ns, const std::string& name);

}  // namespace stowage::testing
