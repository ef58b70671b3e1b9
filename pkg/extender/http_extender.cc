#include "pkg/extender/http_extender.h"

#include <algorithm>
#include <unordered_map>

#include "pkg/common/file.h"
#include "pkg/config/written.h"
#include "pkg/extender/wire.h"

namespace stowage::extender {
namespace {

std::unordered_set<std::string> ManagedNames(const config::Extender& c) {
  std::unordered_set<std::string> out;
  for (const auto& r : c.managed_resources) out.insert(r.name);
  return out;
}

bool Uses(const std::unordered_set<std::string>& managed, const std::vector<api::Container>& cs) {
  for (const auto& c : cs) {
    for (const auto& [name, q] : c.resources.requests.entries()) {
      if (managed.count(name)) return true;
    }
    for (const auto& [name, q] : c.resources.limits.entries()) {
      if (managed.count(name)) return true;
    }
  }
  return false;
}

// The PEM of data, or else of the file named by path (empty when neither is set).
StatusOr<std::string> Pem(const std::string& data, const std::string& path) {
  if (!data.empty() || path.empty()) return data;
  return ReadFile(path);
}

}  // namespace

HttpExtender::HttpExtender(const config::Extender& c, std::unique_ptr<client::Transport> transport,
                           size_t max_response_bytes)
    : name_(c.url_prefix),
      filter_verb_(c.filter_verb),
      prioritize_verb_(c.prioritize_verb),
      bind_verb_(c.bind_verb),
      preempt_verb_(c.preempt_verb),
      weight_(c.weight),
      node_cache_capable_(c.node_cache_capable),
      ignorable_(c.ignorable),
      timeout_(c.http_timeout > Duration::zero() ? c.http_timeout
                                                 : config::kDefaultExtenderTimeout),
      max_response_bytes_(max_response_bytes),
      managed_resources_(ManagedNames(c)),
      transport_(std::move(transport)) {}

bool HttpExtender::IsInterested(const api::Pod& pod) const {
  if (managed_resources_.empty()) return true;
  return Uses(managed_resources_, pod.spec.containers) ||
         Uses(managed_resources_, pod.spec.init_containers);
}

StatusOr<std::string> HttpExtender::Send(const std::string& verb, std::string body) {
  client::HttpRequest req;
  req.method = "POST";
  req.target = "/" + verb;
  req.body = std::move(body);
  req.timeout = timeout_;
  req.max_response_bytes = std::max(max_response_bytes_, 4 * req.body.size());
  std::string url = name_;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += req.target;
  auto resp = transport_->RoundTrip(req);
  if (!resp.ok()) {
    std::string why = "Post \"" + url + "\": " + std::string(resp.status().message());
    if (resp.status().code() == StatusCode::kResourceExhausted) {
      why += " (an extender's answer is limited by --extender-max-response-bytes)";
    }
    return Status(resp.status().code(), why);
  }
  if (resp->status != 200) {
    return UnavailableError("failed " + verb + " with extender at URL " + url + ", code " +
                            std::to_string(resp->status));
  }
  return std::move(resp->body);
}

stowage::Status HttpExtender::Filter(const api::Pod& pod,
                                     const std::vector<const framework::NodeInfo*>& nodes,
                                     framework::ExtenderFilterResult& out) {
  out = {};
  if (filter_verb_.empty()) {
    out.feasible = nodes;
    return OkStatus();
  }
  auto body = Send(filter_verb_, EncodeExtenderArgs(pod, nodes, node_cache_capable_));
  if (!body.ok()) return body.status();
  auto result = DecodeFilterResult(*body);
  if (!result.ok()) return result.status();
  if (!result->error.empty()) return Status(StatusCode::kUnknown, result->error);
  // Upstream rebuilds bare NodeInfos from a returned NodeList; stowage maps every returned name
  // back to the node it sent, so the nodes scored next keep their pods.
  const auto& names =
      node_cache_capable_ && result->node_names ? result->node_names : result->node_items;
  if (names) {
    std::unordered_map<std::string_view, const framework::NodeInfo*> sent;
    for (const auto* n : nodes) sent.emplace(n->name(), n);
    for (const auto& name : *names) {
      auto it = sent.find(name);
      if (it == sent.end()) {
        return InvalidArgumentError("extender \"" + name_ + "\" claims a filtered node \"" + name +
                                    "\" which is not found in the input node list");
      }
      out.feasible.push_back(it->second);
    }
  }
  out.failed = std::move(result->failed);
  out.failed_and_unresolvable = std::move(result->failed_and_unresolvable);
  return OkStatus();
}

stowage::Status HttpExtender::Prioritize(const api::Pod& pod,
                                         const std::vector<const framework::NodeInfo*>& nodes,
                                         std::vector<framework::HostPriority>& out) {
  out.clear();
  if (prioritize_verb_.empty()) {
    for (const auto* n : nodes) out.push_back({n->name(), 0});
    return OkStatus();
  }
  auto body = Send(prioritize_verb_, EncodeExtenderArgs(pod, nodes, node_cache_capable_));
  if (!body.ok()) return body.status();
  auto list = DecodeHostPriorityList(*body);
  if (!list.ok()) return list.status();
  out = std::move(*list);
  return OkStatus();
}

stowage::Status HttpExtender::Bind(const api::Pod& pod, std::string_view node) {
  if (bind_verb_.empty()) return InternalError("unexpected empty bindVerb in extender");
  auto body = Send(bind_verb_, EncodeBindingArgs(pod, node));
  if (!body.ok()) return body.status();
  auto error = DecodeBindingResult(*body);
  if (!error.ok()) return error.status();
  if (!error->empty()) return Status(StatusCode::kUnknown, *error);
  return OkStatus();
}

stowage::Status HttpExtender::ProcessPreemption(const api::Pod& pod,
                                                const framework::NodeToVictims& proposed,
                                                const framework::NodeInfoLister& nodes,
                                                framework::NodeToVictims& out) {
  out.clear();
  if (preempt_verb_.empty()) {
    return InternalError("preempt verb is not defined for extender " + name_ +
                         " but run into ProcessPreemption");
  }
  auto body = Send(preempt_verb_, EncodePreemptionArgs(pod, proposed, node_cache_capable_));
  if (!body.ok()) return body.status();
  auto result = DecodePreemptionResult(*body);
  if (!result.ok()) return result.status();
  // The extender answers with UIDs; each must name a pod on that node in the snapshot.
  for (auto& [node_name, meta] : *result) {
    const framework::NodeInfo* node = nodes.Get(node_name);
    if (node == nullptr) {
      return NotFoundError("nodeinfo not found for node name \"" + node_name + "\"");
    }
    framework::ExtenderVictims& v = out[node_name];
    v.num_pdb_violations = meta.num_pdb_violations;
    for (const auto& uid : meta.uids) {
      const framework::PodInfoPtr* found = nullptr;
      for (const auto& p : node->pods()) {
        if (p->pod->metadata.uid == uid) found = &p;
      }
      if (found == nullptr) {
        return NotFoundError("extender: " + name_ + " claims to preempt pod (UID: " + uid +
                             ") on node: " + node_name + ", but the pod is not found on that node");
      }
      v.pods.push_back(*found);
    }
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<framework::Extender>> New(const config::Extender& c,
                                                   size_t max_response_bytes) {
  client::RestConfig rc;
  rc.source = "extender \"" + c.url_prefix + "\"";
  rc.server = c.url_prefix;
  while (!rc.server.empty() && rc.server.back() == '/') rc.server.pop_back();
  rc.user_agent = "stowage-extender-client";
  const bool https = rc.server.starts_with("https://");
  if (c.enable_https && !https) {
    return InvalidArgumentError(rc.source + ": enableHTTPS is set but urlPrefix is not https://");
  }
  rc.allow_plain_http = !https;
  if (c.tls_config) {
    const config::ExtenderTLSConfig& t = *c.tls_config;
    if (t.insecure)
      return InvalidArgumentError(rc.source + ": tlsConfig.insecure is not supported");
    auto ca = Pem(t.ca_data, t.ca_file);
    auto cert = Pem(t.cert_data, t.cert_file);
    auto key = Pem(t.key_data, t.key_file);
    for (const auto* s : {&ca, &cert, &key}) {
      if (!s->ok())
        return Status(s->status().code(), rc.source + ": " + std::string(s->status().message()));
    }
    rc.ca_pem = std::move(*ca);
    rc.client_cert_pem = std::move(*cert);
    rc.client_key_pem = std::move(*key);
    rc.tls_server_name = t.server_name;
  }
  auto transport = client::NewHttpsTransport(rc);
  if (!transport.ok()) return transport.status();
  return std::unique_ptr<framework::Extender>(
      std::make_unique<HttpExtender>(c, std::move(*transport), max_response_bytes));
}

}  // namespace stowage::extender
