#include "tests/testing/objects.h"

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "pkg/client/errors.h"
#include "stowage/common/mutex.h"

namespace stowage::testing {

using json = nlohmann::json;

NodeWrapper BuildClusterNode() {
  return BuildNode()
      .Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}})
      .Condition("Ready", "True");
}

Status EnsureNamespace(client::RestClient& c, const std::string& name) {
  json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  auto r = c.Post("/api/v1/namespaces", ns.dump());
  if (!r.ok() && !client::IsAlreadyExists(r.status())) return r.status();
  return OkStatus();
}

Status CreatePod(client::RestClient& c, const PodWrapper& pod) {
  std::string ns = pod.Obj()->metadata.namespace_;
  if (ns.empty()) ns = "default";
  // The apiserver's Priority admission reads PriorityClasses from its own informer, so a pod
  // naming a class created a moment ago can be refused until that informer has it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    Status s = c.Post("/api/v1/namespaces/" + ns + "/pods", pod.Json()).status();
    if (s.ok() || s.message().find("no PriorityClass with name") == std::string_view::npos ||
        std::chrono::steady_clock::now() >= deadline) {
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Status CreateNode(client::RestClient& c, const NodeWrapper& node) {
  return c.Post("/api/v1/nodes", node.Json()).status();
}

Status CreatePods(client::RestClient& c, const std::vector<PodWrapper>& pods, int threads) {
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
  std::vector<PodWrapper> pods;
  for (int i = 0; i < count; ++i) {
    pods.push_back(BuildPod().Namespace(ns).Name(prefix + "-" + std::to_string(i)));
  }
  return CreatePods(c, pods, threads);
}

Status DeletePod(client::RestClient& c, const std::string& ns, const std::string& name) {
  return c.Delete("/api/v1/namespaces/" + ns + "/pods/" + name + "?gracePeriodSeconds=0").status();
}

}  // namespace stowage::testing
