#include "tests/testing/objects.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <thread>

#include "pkg/client/errors.h"
#include "pkg/common/mutex.h"

namespace stowage::testing {

using json = nlohmann::json;

std::string PodBuilder::Json() const {
  json container = {{"name", "c"}, {"image", "registry.k8s.io/pause:3.10"}};
  if (!requests_.empty()) container["resources"] = {{"requests", requests_}};
  if (host_port_ > 0) {
    container["ports"] = json::array({{{"containerPort", host_port_}, {"hostPort", host_port_}}});
  }
  json spec = {{"containers", json::array({container})}};
  if (priority_) spec["priority"] = *priority_;
  for (const auto& t : tolerations_) {
    spec["tolerations"].push_back(
        {{"key", t[0]}, {"operator", "Equal"}, {"value", t[1]}, {"effect", t[2]}});
  }
  if (!affinity_key_.empty()) {
    json expr = {{"key", affinity_key_}, {"operator", "In"}, {"values", affinity_values_}};
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({expr})}}})}};
  }
  if (!scheduler_.empty()) spec["schedulerName"] = scheduler_;
  if (!node_.empty()) spec["nodeName"] = node_;
  json meta = {{"name", name_}, {"namespace", ns_}};
  if (!labels_.empty()) meta["labels"] = labels_;
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}}.dump();
}

std::string NodeBuilder::Json() const {
  json meta = {{"name", name_}};
  if (!labels_.empty()) meta["labels"] = labels_;
  json spec = json::object();
  for (const auto& t : taints_) {
    spec["taints"].push_back({{"key", t[0]}, {"value", t[1]}, {"effect", t[2]}});
  }
  json status = {{"capacity", capacity_},
                 {"allocatable", capacity_},
                 {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}};
  return json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", meta}, {"spec", spec},
              {"status", status}}
      .dump();
}

Status EnsureNamespace(client::RestClient& c, const std::string& name) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  auto r = c.Post("/api/v1/namespaces", ns.dump());
  if (!r.ok() && !client::IsAlreadyExists(r.status())) return r.status();
  return OkStatus();
}

Status CreatePod(client::RestClient& c, const PodBuilder& pod) {
  return c.Post("/api/v1/namespaces/" + pod.ns() + "/pods", pod.Json()).status();
}

Status CreateNode(client::RestClient& c, const NodeBuilder& node) {
  return c.Post("/api/v1/nodes", node.Json()).status();
}

Status CreatePods(client::RestClient& c, const std::vector<PodBuilder>& pods, int threads) {
  std::atomic<size_t> next{0};
  Mutex mu;
  Status first_error;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < pods.size(); i = next++) {
        Status s = CreatePod(c, pods[i]);
        if (!s.ok()) {
          MutexLock l(mu);
          if (first_error.ok()) first_error = s;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  return first_error;
}

Status CreatePods(client::RestClient& c, const std::string& ns, const std::string& prefix,
                  int count, int threads) {
  std::vector<PodBuilder> pods;
  for (int i = 0; i < count; ++i) pods.push_back(MakePod().Namespace(ns).Name(prefix + "-" + std::to_string(i)));
  return CreatePods(c, pods, threads);
}

Status DeletePod(client::RestClient& c, const std::string& ns, const std::string& name) {
  return c.Delete("/api/v1/namespaces/" + ns + "/pods/" + name + "?gracePeriodSeconds=0")
      .status();
}

}  // namespace stowage::testing
