// HttpExtender: a configured scheduler extender (config::Extender) reached over HTTP(S), the
// counterpart of upstream's HTTPExtender. Each verb is a POST of the wire format (wire.h) to
// urlPrefix/verb with the extender's httpTimeout (5 s when zero) as the deadline of the whole
// exchange; any answer but 200 with a decodable body is an error naming the verb, the URL and
// the code, as upstream's. An answer is read up to max_response_bytes, or four times the request
// when that is more (a filter answer without nodeCacheCapable echoes the nodes it was sent);
// a larger one fails the call (kResourceExhausted) before it is read further.
//
// TLS is always verified: the server certificate against caFile/caData (or the system trust
// store), its name against serverName when set, and the client certificate of tlsConfig is
// presented. Unlike upstream, `insecure: true` is refused (config validation) and enableHTTPS
// without a CA does not turn verification off. The scheme of urlPrefix decides TLS; an
// enableHTTPS extender must use https.
//
// Thread-safe: the transport pools one connection per concurrent call and holds no lock across
// I/O, so a slow extender delays only the calls made to it.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "pkg/client/transport.h"
#include "pkg/config/types.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"
#include "stowage/framework/extender.h"

namespace stowage::extender {

class HttpExtender final : public framework::Extender {
 public:
  // transport reaches config.url_prefix (its requests carry the path after it).
  HttpExtender(const config::Extender& config, std::unique_ptr<client::Transport> transport,
               size_t max_response_bytes = config::kDefaultExtenderMaxResponseBytes);

  const std::string& Name() const override { return name_; }
  bool IsIgnorable() const override { return ignorable_; }
  bool IsFilter() const override { return !filter_verb_.empty(); }
  bool IsPrioritizer() const override { return !prioritize_verb_.empty(); }
  bool IsBinder() const override { return !bind_verb_.empty(); }
  bool SupportsPreemption() const override { return !preempt_verb_.empty(); }
  int64_t weight() const override { return weight_; }
  bool IsInterested(const api::Pod& pod) const override;

  stowage::Status Filter(const api::Pod& pod, const std::vector<const framework::NodeInfo*>& nodes,
                         framework::ExtenderFilterResult& out) override;
  stowage::Status Prioritize(const api::Pod& pod,
                             const std::vector<const framework::NodeInfo*>& nodes,
                             std::vector<framework::HostPriority>& out) override;
  stowage::Status Bind(const api::Pod& pod, std::string_view node) override;
  stowage::Status ProcessPreemption(const api::Pod& pod, const framework::NodeToVictims& proposed,
                                    const framework::NodeInfoLister& nodes,
                                    framework::NodeToVictims& out) override;

 private:
  // POSTs body to verb; the answer's body when it is 200.
  StatusOr<std::string> Send(const std::string& verb, std::string body);

  const std::string name_;
  const std::string filter_verb_;
  const std::string prioritize_verb_;
  const std::string bind_verb_;
  const std::string preempt_verb_;
  const int64_t weight_;
  const bool node_cache_capable_;
  const bool ignorable_;
  const Duration timeout_;
  const size_t max_response_bytes_;
  const std::unordered_set<std::string> managed_resources_;
  const std::unique_ptr<client::Transport> transport_;
};

// The extender of config over the real transport: fails when the URL, the TLS files or the TLS
// settings are unusable.
StatusOr<std::unique_ptr<framework::Extender>> New(
    const config::Extender& config,
    size_t max_response_bytes = config::kDefaultExtenderMaxResponseBytes);

}  // namespace stowage::extender
