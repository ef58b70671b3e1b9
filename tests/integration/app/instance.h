// Helpers for tests that run the stowage binary against the shared test cluster: an Instance
// (the process, its secure port and log) and Curl for HTTPS requests to that port.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "pkg/common/file.h"
#include "tests/testing/cluster.h"
#include "tests/testing/process.h"

namespace stowage::apptest {

using namespace std::chrono_literals;

// A stowage process on a free loopback port, logging at -v=2 into the cluster's directory.
class Instance {
 public:
  explicit Instance(std::vector<std::string> extra, std::vector<std::string> env = {}) {
    static std::atomic<int> seq{0};
    port_ = testing::FreePort();
    log_ = testing::SharedCluster().dir() + "/stowage-" + std::to_string(getpid()) + "-" +
           std::to_string(seq++) + ".log";
    std::vector<std::string> argv = {
        STOWAGE_BINARY, "--kubeconfig=" + testing::SharedCluster().kubeconfig(),
        "--secure-port=" + std::to_string(port_), "--bind-address=127.0.0.1", "-v=2"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Status s = process_.Start(argv, log_, env);
    EXPECT_TRUE(s.ok()) << s;
  }
  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(port_) + path;
  }
  testing::Process& process() { return process_; }
  std::string Log() const { return process_.Log(); }
  bool WaitForLog(std::string_view text, std::chrono::milliseconds timeout = 60s) const {
    return process_.WaitForLog(text, timeout);
  }
  const std::string& log_path() const { return log_; }

 private:
  int port_ = 0;
  std::string log_;
  testing::Process process_;
};

struct HttpResult {
  int code = 0;  // 0: no HTTP answer (connection or TLS failure)
  std::string body;
};

// GET (or another method) over HTTPS with curl, without verifying the self-signed certificate.
inline HttpResult Curl(const std::string& url, const std::string& bearer = "",
                       const std::string& method = "GET") {
  std::string body_file = testing::SharedCluster().dir() + "/curl-body-" + std::to_string(getpid());
  std::string cmd = "curl -sk --max-time 20 -o '" + body_file + "' -w '%{http_code}' -X " + method;
  if (!bearer.empty()) cmd += " -H 'Authorization: Bearer " + bearer + "'";
  cmd += " '" + url + "' 2>/dev/null";
  HttpResult r;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return r;
  char buf[16] = {};
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  pclose(f);
  r.code = std::atoi(std::string(buf, n).c_str());
  auto text = ReadFile(body_file);
  if (text.ok()) r.body = *text;
  std::remove(body_file.c_str());
  return r;
}

// Polls until /readyz answers 200 (caches synced, and leader when electing), or the timeout.
inline bool WaitReady(const Instance& in, std::chrono::milliseconds timeout = 60s,
                      const std::string& path = "/healthz") {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Curl(in.url(path)).code == 200) return true;
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

}  // namespace stowage::apptest
