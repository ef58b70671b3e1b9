#include "tests/testing/cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "pkg/client/kubeconfig.h"
#include "pkg/common/file.h"

extern char** environ;

namespace stowage::testing {

std::string TestCluster::BinDir() { return std::string(STOWAGE_SOURCE_DIR) + "/tests/cluster/bin"; }

TestCluster::TestCluster(std::vector<std::string> extra_args) : extra_args_(std::move(extra_args)) {
  char tmpl[] = "/tmp/stowage-cluster-XXXXXX";
  if (char* d = mkdtemp(tmpl)) dir_ = d;
}

TestCluster::~TestCluster() {
  Stop();
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

Status TestCluster::Start() {
  if (running()) return OkStatus();
  std::string bin = BinDir() + "/testcluster";
  if (access(bin.c_str(), X_OK) != 0) {
    return FailedPreconditionError(bin + " is missing: run tests/cluster/build first");
  }
  std::string out = dir_ + "/testcluster.out";
  std::string log = dir_ + "/testcluster.log";
  std::remove(out.c_str());
  std::string extra;
  for (const auto& a : extra_args_) extra += (extra.empty() ? "" : " ") + a;
  std::vector<std::string> args = {bin, "-dir", dir_};
  if (storage_) args.push_back("-storage");
  if (dra_) args.push_back("-dra");
  if (!extra.empty()) {
    args.push_back("-apiserver-args");
    args.push_back(extra);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  int rc = posix_spawn(&pid_, bin.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    pid_ = -1;
    return InternalError("cannot start " + bin + ": " + std::strerror(rc));
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    auto text = ReadFile(out);
    if (text.ok() && text->find("READY ") != std::string::npos) {
      size_t p = text->find("READY ") + 6;
      server_ = text->substr(p, text->find('\n', p) - p);
      return OkStatus();
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return InternalError("testcluster exited during start-up; see " + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Stop();
  return DeadlineExceededError("testcluster not ready within 120s; see " + log);
}

void TestCluster::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

client::RestConfig TestCluster::AdminConfig() const {
  auto c = client::LoadKubeconfig(kubeconfig());
  if (!c.ok()) {
    std::fprintf(stderr, "test cluster kubeconfig: %s\n", c.status().ToString().c_str());
    std::abort();
  }
  c->qps = 1000;
  c->burst = 1000;
  return *c;
}

client::RestClient& TestCluster::Admin() {
  if (!admin_) {
    auto c = client::RestClient::New(AdminConfig());
    if (!c.ok()) {
      std::fprintf(stderr, "test cluster client: %s\n", c.status().ToString().c_str());
      std::abort();
    }
    admin_ = std::move(*c);
  }
  return *admin_;
}

namespace {
TestCluster* g_shared = nullptr;
bool g_shared_storage = false;
bool g_shared_dra = false;
}  // namespace

bool UseStorageFlow() {
  g_shared_storage = true;
  return true;
}

bool UseDraFlow() {
  g_shared_dra = true;
  return true;
}

TestCluster& SharedCluster() {
  if (g_shared == nullptr) {
    g_shared = new TestCluster();
    if (g_shared_storage) g_shared->EnableStorageFlow();
    if (g_shared_dra) g_shared->EnableDraFlow();
    if (auto s = g_shared->Start(); !s.ok()) {
      std::fprintf(stderr, "cannot start the test cluster: %s\n", s.ToString().c_str());
      std::abort();
    }
    // Deleted at exit so no apiserver outlives the test binary and its data is removed.
    std::atexit([] {
      delete g_shared;
      g_shared = nullptr;
    });
  }
  return *g_shared;
}

}  // namespace stowage::testing
