// RestConfig: everything needed to reach and authenticate to one API server, as resolved from a
// kubeconfig, the in-cluster environment, or flags. Plain data; credentials held here are never
// logged (DescribeForLog prints where they came from, not what they are).
#pragma once

#include <string>

#include "stowage/common/clock.h"

namespace stowage::client {

struct RestConfig {
  // Where the settings came from, e.g. `kubeconfig "/etc/kubernetes/scheduler.conf", context
  // "default"`, for error messages.
  std::string source;
  // "https://host:port" with an optional path prefix. Only https is accepted, unless
  // allow_plain_http (an extender without enableHTTPS; never the API server).
  std::string server;
  bool allow_plain_http = false;
  // PEM. The server's certificate is always verified against ca_pem (or, when it is empty, the
  // system trust store); there is no way to turn verification off.
  std::string ca_pem;
  std::string tls_server_name;  // overrides the host name checked in the certificate
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string bearer_token;
  std::string bearer_token_file;  // re-read every minute, as projected tokens rotate

  // Client-side rate limit (token bucket) and request timeout; 0 timeout means the default.
  double qps = 50;
  int burst = 100;
  Duration timeout{};
  std::string user_agent = "stowage";
  // clientConnection.contentType: with "application/vnd.kubernetes.protobuf" (upstream's default)
  // the objects written for every pod, Binding and Event, are sent as protobuf; anything else,
  // and every other object, as JSON; lists and watches of Pods and Nodes are asked for as protobuf
  // (pkg/client/protobuf_decode.h), other answers as JSON.
  std::string content_type;
  // How many times a failed request is retried (transient errors, 429, 5xx).
  int max_retries = 5;
};

}  // namespace stowage::client
