// Holes found by probing the stowage binary as an attacker would, each checked against the real
// test cluster: start-up inputs that are not regular files, and a SIGTERM before the caches
// synced that must not tell systemd the service is ready; and the process sandbox of a running
// stowage as /proc shows it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "tests/integration/app/instance.h"

namespace stowage::apptest::hardening_test {
namespace {

using ::testing::HasSubstr;
using testing::SharedCluster;

// A FIFO nobody writes to: opening it for reading the ordinary way blocks forever.
std::string MakeFifo(const std::string& name) {
  std::string path = SharedCluster().dir() + "/" + name;
  unlink(path.c_str());
  EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
  return path;
}

// Each file stowage reads at start-up is refused when it is a FIFO or /dev/zero: the process
// exits at once with an error naming the flag and the path, instead of blocking or growing
// without bound.
TEST(Hardening, StartupFilesThatAreNotRegularFilesAreRefusedByFlagAndPath) {
  const std::string fifo = MakeFifo("fifo-input");
  struct Case {
    std::string flag;
    std::string path;
    std::string kind;
  };
  const std::vector<Case> cases = {
      {"--config", fifo, "a FIFO"},
      {"--config", "/dev/zero", "a character device"},
      {"--kubeconfig", fifo, "a FIFO"},
      {"--kubeconfig", "/dev/zero", "a character device"},
      {"--tls-cert-file", "/dev/zero", "a character device"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> extra = {"--leader-elect=false", c.flag + "=" + c.path};
    if (c.flag == "--tls-cert-file") extra.push_back("--tls-private-key-file=" + fifo);
    Instance in(extra);
    auto code = in.process().Wait(std::chrono::seconds(20));
    ASSERT_TRUE(code.has_value()) << c.flag << "=" << c.path << " did not exit; log:\n" << in.Log();
    EXPECT_NE(*code, 0);
    // The log may escape the quotes around the path, so the parts are matched one by one.
    const std::string log = in.Log();
    EXPECT_THAT(log, HasSubstr(c.flag + ": ")) << log;
    EXPECT_THAT(log, HasSubstr(c.path));
    EXPECT_THAT(log, HasSubstr("is " + c.kind + ", not a regular file"));
  }
  unlink(fifo.c_str());
}

// The cluster's kubeconfig with its server moved to a port nothing listens on, so the informer
// caches never sync.
std::string UnreachableKubeconfig() {
  auto text = ReadFile(SharedCluster().kubeconfig());
  EXPECT_TRUE(text.ok()) << text.status();
  std::string moved =
      std::regex_replace(text.ok() ? *text : "", std::regex("server: *https://[^\\s]+"),
                         "server: https://127.0.0.1:" + std::to_string(testing::FreePort()));
  std::string path = SharedCluster().dir() + "/kubeconfig-unreachable";
  std::ofstream(path) << moved;
  return path;
}

TEST(Hardening, SigtermBeforeCachesSyncedNeverSendsReady) {
  NotifySocket notify("notify-unsynced.sock");
  Instance in({"--leader-elect=false", "--kubeconfig=" + UnreachableKubeconfig()},
              {"NOTIFY_SOCKET=" + notify.path()});
  ASSERT_TRUE(in.WaitForLog("starting stowage against")) << in.Log();
  in.process().Signal(SIGTERM);
  // The first notification is the stop; READY=1 never comes.
  std::string first = notify.Receive();
  EXPECT_THAT(first, HasSubstr("STOPPING=1")) << in.Log();
  EXPECT_THAT(first, ::testing::Not(HasSubstr("READY=1")));
  auto code = in.process().Wait(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << in.Log();
  EXPECT_THAT(in.Log(), ::testing::Not(HasSubstr("caches synced")));
}

std::string StatusField(pid_t pid, const std::string& name) {
  auto status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  if (!status.ok()) return "";
  const size_t at = status->find("\n" + name + ":");
  if (at == std::string::npos) return "";
  const size_t start = status->find_first_not_of(" \t", at + name.size() + 2);
  return status->substr(start, status->find('\n', start) - start);
}

// A stowage scheduling against the real cluster runs sandboxed by default, and serves (its
// secure port answers) while it is.
TEST(Hardening, RunningStowageIsSandboxed) {
  Instance in({"--leader-elect=false"});
  ASSERT_TRUE(WaitReady(in, 60s, "/readyz")) << in.Log();
  const pid_t pid = in.process().pid();
  EXPECT_EQ(StatusField(pid, "Seccomp"), "2");
  EXPECT_EQ(StatusField(pid, "NoNewPrivs"), "1");
  EXPECT_EQ(StatusField(pid, "CapEff"), "0000000000000000");
  EXPECT_THAT(in.Log(), HasSubstr("sandbox entered"));

  Instance off({"--leader-elect=false", "--sandbox=false"});
  ASSERT_TRUE(WaitReady(off, 60s, "/readyz")) << off.Log();
  EXPECT_EQ(StatusField(off.process().pid(), "Seccomp"), "0");
  EXPECT_THAT(off.Log(), ::testing::Not(HasSubstr("sandbox entered")));
}

}  // namespace
}  // namespace stowage::apptest::hardening_test
