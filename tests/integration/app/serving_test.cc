// The stowage binary's secure port against the real apiserver: health endpoints open to all,
// /metrics only for a ServiceAccount granted it through TokenReview and SubjectAccessReview, TLS
// versions, certificate files replaced without a restart, --profiling=false, and READY=1 to
// systemd once caches have synced.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "pkg/client/errors.h"
#include "tests/integration/app/instance.h"

namespace stowage::apptest::serving_test {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

std::string AdminToken() {
  auto t = ReadFile(SharedCluster().dir() + "/token");
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : "";
}

std::vector<std::string> AuthFlags() {
  return {"--leader-elect=false", "--authentication-kubeconfig=" + SharedCluster().kubeconfig(),
          "--authorization-kubeconfig=" + SharedCluster().kubeconfig()};
}

// A ServiceAccount token; with metrics_reader, the account may get /metrics.
std::string ServiceAccountToken(const std::string& name, bool metrics_reader) {
  auto post = [](const std::string& path, const std::string& body) {
    auto r = Admin().Post(path, body);
    EXPECT_TRUE(r.ok() || client::IsAlreadyExists(r.status())) << r.status();
    return r.ok() ? *r : std::string();
  };
  post("/api/v1/namespaces/default/serviceaccounts",
       R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")" + name + R"("}})");
  if (metrics_reader) {
    post(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"stowage-metrics-reader"},
            "rules":[{"nonResourceURLs":["/metrics"],"verbs":["get"]}]})");
    post(
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":")" +
            name +
            R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"stowage-metrics-reader"},
            "subjects":[{"kind":"ServiceAccount","name":")" +
            name + R"(","namespace":"default"}]})");
  }
  std::string body =
      post("/api/v1/namespaces/default/serviceaccounts/" + name + "/token",
           R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  auto j = nlohmann::json::parse(body, nullptr, false);
  return j.is_discarded() ? "" : j["status"]["token"].get<std::string>();
}

TEST(Serving, HealthIsOpenAndMetricsNeedAGrantThroughTheApiserver) {
  std::string reader = ServiceAccountToken("metrics-reader", true);
  std::string nobody = ServiceAccountToken("metrics-nobody", false);
  ASSERT_FALSE(reader.empty());
  Instance in(AuthFlags());
  ASSERT_TRUE(WaitReady(in, 60s, "/readyz")) << in.Log();
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    HttpResult r = Curl(in.url(path));
    EXPECT_EQ(r.code, 200) << path;
    EXPECT_EQ(r.body, "ok") << path;
  }
  HttpResult verbose = Curl(in.url("/readyz?verbose"));
  EXPECT_THAT(verbose.body, HasSubstr("[+]sched-handler-sync ok"));
  EXPECT_THAT(verbose.body, HasSubstr("[+]shutdown ok"));

  HttpResult anonymous = Curl(in.url("/metrics"));
  EXPECT_EQ(anonymous.code, 403) << anonymous.body;
  EXPECT_THAT(anonymous.body, HasSubstr("system:anonymous"));
  HttpResult garbage = Curl(in.url("/metrics"), "not-a-token");
  EXPECT_EQ(garbage.code, 401) << garbage.body;
  HttpResult denied = Curl(in.url("/metrics"), nobody);
  EXPECT_EQ(denied.code, 403) << denied.body;
  HttpResult allowed = Curl(in.url("/metrics"), reader);
  EXPECT_EQ(allowed.code, 200) << allowed.body;
  // Families with series from the start (labelled families appear with their first series).
  EXPECT_THAT(allowed.body, HasSubstr("# TYPE scheduler_pending_pods gauge"));
  EXPECT_THAT(allowed.body, HasSubstr("scheduler_pending_pods{queue=\"active\"}"));
  EXPECT_THAT(allowed.body,
              HasSubstr("# TYPE scheduler_scheduling_algorithm_duration_seconds histogram"));
  // The grant covers /metrics only.
  EXPECT_EQ(Curl(in.url("/configz"), reader).code, 403);
  // system:masters may read everything.
  HttpResult configz = Curl(in.url("/configz"), AdminToken());
  EXPECT_EQ(configz.code, 200) << configz.body;
  EXPECT_THAT(configz.body, HasSubstr("\"componentconfig\""));
  EXPECT_EQ(Curl(in.url("/flagz"), AdminToken()).code, 200);
  EXPECT_EQ(Curl(in.url("/statusz"), AdminToken()).code, 200);
}

std::string ServedSerial(int port, const std::string& extra = "") {
  std::string cmd = "echo | openssl s_client -connect 127.0.0.1:" + std::to_string(port) + " " +
                    extra + " 2>/dev/null | openssl x509 -noout -serial 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return "";
  char buf[256] = {};
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  pclose(f);
  return std::string(buf, n);
}

void MakeCert(const std::string& dir, const std::string& name) {
  std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 "
      "-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 -keyout " +
      dir + "/" + name + ".key -out " + dir + "/" + name + ".crt 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
}

TEST(Serving, TlsVersionsAndCertificateFilesReplacedWithoutRestart) {
  std::string dir = SharedCluster().dir() + "/tls";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  MakeCert(dir, "one");
  MakeCert(dir, "two");
  ASSERT_EQ(std::system(("cp " + dir + "/one.crt " + dir + "/serving.crt && cp " + dir +
                         "/one.key " + dir + "/serving.key")
                            .c_str()),
            0);
  Instance in({"--leader-elect=false", "--tls-cert-file=" + dir + "/serving.crt",
               "--tls-private-key-file=" + dir + "/serving.key"});
  ASSERT_TRUE(WaitReady(in)) << in.Log();
  std::string first = ServedSerial(in.port());
  ASSERT_THAT(first, HasSubstr("serial="));
  // TLS 1.1 is refused even by a client willing to speak it; 1.2 and 1.3 are accepted.
  EXPECT_EQ(ServedSerial(in.port(), "-tls1_1 -cipher DEFAULT@SECLEVEL=0"), "");
  EXPECT_EQ(ServedSerial(in.port(), "-tls1_2"), first);
  EXPECT_EQ(ServedSerial(in.port(), "-tls1_3"), first);

  // Replace the pair atomically (rename), as cert-manager and kubeadm do.
  ASSERT_EQ(std::system(("cp " + dir + "/two.crt " + dir + "/new.crt && cp " + dir + "/two.key " +
                         dir + "/new.key && mv " + dir + "/new.key " + dir + "/serving.key && mv " +
                         dir + "/new.crt " + dir + "/serving.crt")
                            .c_str()),
            0);
  std::string second;
  auto deadline = std::chrono::steady_clock::now() + 90s;
  while (std::chrono::steady_clock::now() < deadline) {
    second = ServedSerial(in.port());
    if (!second.empty() && second != first) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_NE(second, first) << "the new certificate was not served without a restart";
  EXPECT_THAT(second, HasSubstr("serial="));
  EXPECT_TRUE(in.process().running());
}

TEST(Serving, ProfilingFalseLeavesNoDebugEndpoint) {
  std::vector<std::string> off_flags = AuthFlags();
  off_flags.push_back("--profiling=false");
  Instance off(off_flags);
  Instance on(AuthFlags());
  ASSERT_TRUE(WaitReady(off)) << off.Log();
  ASSERT_TRUE(WaitReady(on)) << on.Log();
  EXPECT_EQ(Curl(on.url("/debug/flags/v"), AdminToken()).code, 200);
  for (const char* path : {"/debug/flags/v", "/debug/pprof/", "/debug/pprof/profile"}) {
    EXPECT_EQ(Curl(off.url(path), AdminToken()).code, 404) << path;
  }
}

TEST(Serving, NotifiesSystemdWhenReadyAndWhenStopping) {
  NotifySocket notify("notify.sock");
  Instance in({"--leader-elect=false"}, {"NOTIFY_SOCKET=" + notify.path()});
  std::string first = notify.Receive();
  ASSERT_FALSE(first.empty()) << "no notification; log:\n" << in.Log();
  EXPECT_THAT(first, HasSubstr("READY=1"));
  EXPECT_TRUE(in.Log().find("caches synced") != std::string::npos)
      << "READY=1 before the caches synced";
  in.process().Signal(SIGTERM);
  EXPECT_THAT(notify.Receive(), HasSubstr("STOPPING=1"));
  auto code = in.process().Wait(30s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0);
}

}  // namespace
}  // namespace stowage::apptest::serving_test
