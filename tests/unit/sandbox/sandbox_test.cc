// The sandbox entered in a child process (it cannot be left again): what /proc reports, a system
// call outside the allow-list refused, and Landlock's file rules: reads beneath the directory of a
// reloaded file (also after the file is replaced by a rename), nothing elsewhere, no writes.
#include "pkg/sandbox/sandbox.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "pkg/common/file.h"

namespace stowage::sandbox::sandbox_test {
namespace {

// Runs body in a forked child; returns what it reported (empty: every check held). The child
// writes its complaints to a pipe, so a failure says what went wrong.
std::string InChild(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string report = body();
    if (::write(fds[1], report.data(), report.size()) < 0) _exit(3);
    _exit(report.empty() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) > 0;) out.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return "child died: " + out;
  return out;
}

std::string StatusField(const std::string& status, const std::string& name) {
  const size_t at = status.find("\n" + name + ":");
  if (at == std::string::npos) return "";
  const size_t start = status.find_first_not_of(" \t", at + name.size() + 2);
  return status.substr(start, status.find('\n', start) - start);
}

TEST(Sandbox, ProcStatusShowsSeccompNoNewPrivsAndNoCapabilities) {
  std::string report = InChild([] {
    auto entered = Enter({});
    if (!entered.ok()) return entered.status().ToString();
    auto status = ReadFile("/proc/self/status", 1 << 20);
    if (!status.ok()) return status.status().ToString();
    std::string problems;
    for (auto [field, want] : {std::pair{"Seccomp", "2"},
                               {"NoNewPrivs", "1"},
                               {"CapEff", "0000000000000000"},
                               {"CapPrm", "0000000000000000"}}) {
      std::string got = StatusField(*status, field);
      if (got != want) problems += std::string(field) + "=" + got + "; ";
    }
    return problems;
  });
  EXPECT_EQ(report, "");
}

TEST(Sandbox, ExecveOutsideTheAllowListIsRefused) {
  std::string report = InChild([] {
    if (Status s = InstallSeccompFilter(); !s.ok()) return s.ToString();
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execve("/bin/true", argv, nullptr);  // returns only when refused
    return errno == EPERM ? std::string() : std::string("execve: ") + std::strerror(errno);
  });
  EXPECT_EQ(report, "");
  // Without the filter the same call runs: the refusal above is the filter's.
  EXPECT_EQ(InChild([] {
              char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
              ::execve("/bin/true", argv, nullptr);
              return std::string("execve failed without a filter");
            }),
            "");
}

// Threads started before Enter would keep their capabilities: Enter refuses to run then.
TEST(Sandbox, RefusesToEnterOnceThreadsRun) {
  std::string report = InChild([] {
    std::thread t([] { ::pause(); });
    t.detach();
    auto entered = Enter({});
    if (entered.ok()) return std::string("entered with two threads");
    return std::string(entered.status().message()).find("threads already run") != std::string::npos
               ? std::string()
               : entered.status().ToString();
  });
  EXPECT_EQ(report, "");
}

class LandlockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "sandbox-" + std::to_string(::getpid());
    ::mkdir(root_.c_str(), 0700);
    ::mkdir((root_ + "/certs").c_str(), 0700);
    ::mkdir((root_ + "/other").c_str(), 0700);
    std::ofstream(root_ + "/certs/tls.crt") << "old";
    std::ofstream(root_ + "/other/secret") << "secret";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string root_;
};

TEST_F(LandlockTest, ReloadedFilesStayReadableAndNothingElseIsReachable) {
  const std::string root = root_;
  std::string report = InChild([root] {
    Policy p;
    p.read_files = {root + "/certs/tls.crt"};
    p.seccomp = false;  // the rename below stands in for another process: allowed here
    auto entered = Enter(p);
    if (!entered.ok()) return entered.status().ToString();
    if (entered->landlock_abi == 0) return std::string();  // nothing to check on this kernel
    std::string problems;
    auto cert = ReadFile(root + "/certs/tls.crt");
    if (!cert.ok() || *cert != "old") problems += "cannot read the certificate; ";
    if (ReadFile(root + "/other/secret").ok()) problems += "read a file outside the rules; ";
    if (ReadFile("/proc/self/stat").status().code() != StatusCode::kOk) {
      problems += "cannot read /proc; ";
    }
    const int w = ::open((root + "/certs/new").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (w >= 0) problems += "created a file; ";
    return problems;
  });
  EXPECT_EQ(report, "");
}

// A certificate replaced by a rename (a new inode, as Secret volumes update) is still readable.
TEST_F(LandlockTest, AFileReplacedByRenameIsReadAgain) {
  const std::string root = root_;
  int ready[2];
  int done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    Policy p;
    p.read_files = {root + "/certs/tls.crt"};
    if (!Enter(p).ok()) _exit(2);
    char b = 0;
    if (::write(ready[1], &b, 1) != 1 || ::read(done[0], &b, 1) != 1) _exit(3);
    auto cert = ReadFile(root + "/certs/tls.crt");
    _exit(cert.ok() && *cert == "new" ? 0 : 1);
  }
  char b = 0;
  ASSERT_EQ(::read(ready[0], &b, 1), 1);
  std::ofstream(root + "/certs/tls.crt.tmp") << "new";
  ASSERT_EQ(std::rename((root + "/certs/tls.crt.tmp").c_str(), (root + "/certs/tls.crt").c_str()),
            0);
  ASSERT_EQ(::write(done[1], &b, 1), 1);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace stowage::sandbox::sandbox_test
