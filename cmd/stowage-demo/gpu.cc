// The demo's GPU part (--dra, on a cluster with the DRA flow: tests/cluster/up --dra): one pod
// gets a GPU through a ResourceClaimTemplate, another by asking for the extended resource
// example.com/gpu, which the flow's DeviceClass extended-gpu.example.com provides; the report
// shows the claim and the device each was given.
#include "cmd/stowage-demo/gpu.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

namespace stowage::demo {
namespace {

using json = nlohmann::json;

constexpr char kTemplate[] =
    R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",)"
    R"("metadata":{"name":"one-gpu"},"spec":{"spec":{"devices":{"requests":[)"
    R"({"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}})";

std::string PodJson(const std::string& name, const std::string& scheduler,
                    const std::string& container_extra, const std::string& spec_extra) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"demo"},"spec":{"schedulerName":")" + scheduler +
         R"(","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10")" + container_extra +
         "}]" + spec_extra + "}}";
}

json Get(client::RestClient& api, const std::string& path) {
  auto r = api.Get(path);
  if (!r.ok()) return json();
  return json::parse(*r, nullptr, false);
}

// The claim that holds the pod's GPU: its template's, or the one made for its extended resource.
std::string ClaimOf(const json& pod) {
  const json& status = pod.value("status", json::object());
  if (status.contains("extendedResourceClaimStatus")) {
    return status["extendedResourceClaimStatus"].value("resourceClaimName", "");
  }
  for (const json& s : status.value("resourceClaimStatuses", json::array())) {
    return s.value("resourceClaimName", "");
  }
  return "";
}

}  // namespace

int RunGpu(client::RestClient& api, const std::string& scheduler) {
  const struct {
    const char* name;
    const char* how;
    std::string json;
  } pods[] = {
      {"infer-claim", "claim template one-gpu",
       PodJson("infer-claim", scheduler, "",
               R"(,"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one-gpu"}])")},
      {"infer-extended", "example.com/gpu: 1",
       PodJson(
           "infer-extended", scheduler,
           R"(,"resources":{"requests":{"example.com/gpu":"1"},"limits":{"example.com/gpu":"1"}})",
           "")},
  };
  std::printf("\ncreating a ResourceClaimTemplate and two pods that each want a GPU\n");
  if (auto s =
          api.Post("/apis/resource.k8s.io/v1/namespaces/demo/resourceclaimtemplates", kTemplate);
      !s.ok() && s.status().code() != StatusCode::kAlreadyExists) {
    std::fprintf(stderr, "error: %s\n", s.status().ToString().c_str());
    return 1;
  }
  for (const auto& p : pods) {
    if (auto s = api.Post("/api/v1/namespaces/demo/pods", p.json);
        !s.ok() && s.status().code() != StatusCode::kAlreadyExists) {
      std::fprintf(stderr, "error: %s\n", s.status().ToString().c_str());
      return 1;
    }
  }
  // Bound, and the claim named in the pod's status (written before the binding).
  auto bound = [&](const char* name) {
    json pod = Get(api, std::string("/api/v1/namespaces/demo/pods/") + name);
    return pod.is_object() && !pod["spec"].value("nodeName", "").empty() && !ClaimOf(pod).empty();
  };
  for (int i = 0; i < 600 && !(bound(pods[0].name) && bound(pods[1].name)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  int failures = 0;
  std::printf("\n%-15s %-24s %-8s %-40s %s\n", "POD", "ASKS FOR", "NODE", "CLAIM",
              "DEVICE (driver/pool/device)");
  for (const auto& p : pods) {
    json pod = Get(api, std::string("/api/v1/namespaces/demo/pods/") + p.name);
    const std::string node = pod.is_object() ? pod["spec"].value("nodeName", "") : "";
    const std::string claim = pod.is_object() ? ClaimOf(pod) : "";
    std::string device = "-";
    if (!claim.empty()) {
      json c = Get(api, "/apis/resource.k8s.io/v1/namespaces/demo/resourceclaims/" + claim);
      if (c.is_object() && c.contains("status") && c["status"].contains("allocation")) {
        device.clear();
        for (const json& r : c["status"]["allocation"]["devices"].value("results", json::array())) {
          if (!device.empty()) device += " ";
          device += r.value("driver", "") + "/" + r.value("pool", "") + "/" + r.value("device", "");
        }
      }
    }
    if (node.empty() || device == "-") ++failures;
    std::printf("%-15s %-24s %-8s %-40s %s\n", p.name, p.how, node.empty() ? "-" : node.c_str(),
                claim.empty() ? "-" : claim.c_str(), device.c_str());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace stowage::demo
