// Helpers for tests that run the stowage binary against the shared test cluster: an Instance
// (the process, its secure port and log) and Curl for HTTPS requests to that port.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "pkg/client/resources.h"
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

// The message of pod ns/name's PodScheduled=False condition, or "" (none, or no such pod).
inline std::string ScheduledMessage(const std::string& ns, const std::string& name) {
  auto pod = client::GetObject<api::Pod>(testing::SharedCluster().Admin(), ns, name);
  if (!pod.ok()) return "";
  for (const auto& c : pod->status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") return c.message;
  }
  return "";
}

// Runs binary with args, its standard output into out; the exit code (a failure is reported).
// The log (stderr) goes to out + ".log".
inline int RunTo(const std::string& binary, const std::vector<std::string>& args,
                 const std::string& out) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$0\" \"$@\" >\"$out\"",
                                   binary, out};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::Process p;
  EXPECT_TRUE(p.Start(argv, out + ".log").ok());
  auto code = p.Wait(120s);
  EXPECT_TRUE(code.has_value()) << p.Log();
  if (code.value_or(-1) != 0) ADD_FAILURE() << binary << ": " << p.Log();
  return code.value_or(-1);
}

// A datagram socket standing in for systemd's $NOTIFY_SOCKET.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& name) {
    path_ = testing::SharedCluster().dir() + "/" + name;
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path_.c_str());
    unlink(path_.c_str());
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    timeval tv{60, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~NotifySocket() {
    close(fd_);
    unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  // The next datagram, or "" after a minute without one.
  std::string Receive() {
    char buf[512] = {};
    ssize_t n = recv(fd_, buf, sizeof(buf) - 1, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace stowage::apptest
