// The CEL bridge in the sandboxed process: cel_sandbox_probe runs stowage's own start-up steps
// (the library checked and opened, the sandbox entered, SIGTERM watched), then loads the bridge
// by compiling selectors and evaluates them; the stowage binary itself finds the bridge of the
// build tree with no environment variable. No cluster is needed: nothing here talks to an API
// server (stowage's informers retry 127.0.0.1:9, where nobody answers, until SIGTERM).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/process.h"

namespace stowage::cel_sandbox_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

// The directory this test writes in: beneath the build tree, whose directories are owned by the
// user building and writable by no one else, unlike /tmp (which the checks rightly refuse).
std::string WorkDir(const std::string& name) {
  const std::string dir = std::string(CEL_TEST_DIR) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  return dir;
}

// Runs the probe until "ready", then stops it with stop (SIGTERM, or SIGINT); its log.
std::string RunProbe(const std::vector<std::string>& args, const std::string& dir,
                     int stop = SIGTERM) {
  testing::Process p;
  std::vector<std::string> argv = {CEL_SANDBOX_PROBE};
  argv.insert(argv.end(), args.begin(), args.end());
  EXPECT_TRUE(p.Start(argv, dir + "/probe.log").ok());
  EXPECT_TRUE(p.WaitForLog("ready", 120s)) << p.Log();
  // SIGUSR2 (the cache debugger's) must reach stowage's watcher too: in a Go thread that did
  // not block it, its default action would end the process.
  p.Signal(SIGUSR2);
  EXPECT_TRUE(p.WaitForLog("received User defined signal 2", 10s)) << p.Log();
  EXPECT_TRUE(p.running()) << p.Log();
  p.Signal(stop);
  // Prompt: the signal is taken by stowage's SignalWatcher, not by Go's handlers.
  EXPECT_EQ(p.Wait(10s), 0) << p.Log();
  return p.Log();
}

TEST(CelSandboxTest, LoadsAfterTheSandboxEvaluatesAndStopsOnSigterm) {
  const std::string dir = WorkDir("sandboxed");
  const std::string log = RunProbe({std::string("--cel-library=") + CEL_BRIDGE}, dir);
  EXPECT_THAT(log, HasSubstr("sandbox entered"));
  EXPECT_THAT(log, HasSubstr(std::string("CEL library for DRA device selectors: ") + CEL_BRIDGE));
  EXPECT_THAT(log, HasSubstr("true-case true\n"));
  EXPECT_THAT(log, HasSubstr("false-case false\n"));
  EXPECT_THAT(log, HasSubstr("runtime-error error: no such key: missing. consider using CEL "
                             "optional chaining"));
  EXPECT_THAT(log, HasSubstr("cost-limit error: operation cancelled: actual cost limit exceeded"));
  EXPECT_THAT(log, HasSubstr("compile-error compilation failed: ERROR: <input>:1:"));
  // Every Go thread inherited seccomp, no_new_privs and the empty capability sets.
  EXPECT_THAT(log, HasSubstr("threads confined"));
  EXPECT_THAT(log, Not(HasSubstr("not confined")));
  if (log.find("Landlock ABI") != std::string::npos) {
    EXPECT_THAT(log, HasSubstr("outside-landlock unreadable"));
  }
  EXPECT_THAT(log, HasSubstr("after-signal true\n"));
  EXPECT_THAT(log, HasSubstr("stopping"));
}

TEST(CelSandboxTest, StopsOnSigintAfterLoading) {
  const std::string dir = WorkDir("sigint");
  const std::string log = RunProbe({std::string("--cel-library=") + CEL_BRIDGE}, dir, SIGINT);
  EXPECT_THAT(log, HasSubstr("true-case true\n"));
  EXPECT_THAT(log, HasSubstr("after-signal true\n"));
}

// A file whose checks fail is never loaded: its content does not matter, so a stand-in will do.
std::string StandIn(const std::string& dir, mode_t mode) {
  const std::string path = dir + "/libstowage_cel.so";
  std::ofstream(path) << "not a library\n";
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(CelSandboxTest, RefusesAGroupWritableLibrary) {
  const std::string dir = WorkDir("group_writable");
  const std::string lib = StandIn(dir, 0664);
  const std::string log = RunProbe({"--cel-library=" + lib}, dir);
  const std::string why = "CEL library \"" + lib + "\" is writable by group or others (mode 0664)";
  EXPECT_THAT(log, HasSubstr(why + "; DRA device selectors cannot be evaluated"));
  // Compile reports it, naming the file, and the process goes on and stops cleanly.
  EXPECT_THAT(log, HasSubstr("compile error: " + why));
}

TEST(CelSandboxTest, RefusesALibraryOfAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "chown to another uid needs root";
  const std::string dir = WorkDir("other_owner");
  const std::string lib = StandIn(dir, 0644);
  ASSERT_EQ(::chown(lib.c_str(), 65534, 65534), 0);
  const std::string log = RunProbe({"--cel-library=" + lib}, dir);
  EXPECT_THAT(log, HasSubstr("compile error: CEL library \"" + lib +
                             "\" is owned by uid 65534, not by root"));
}

TEST(CelSandboxTest, RefusesALibraryInAGroupWritableDirectory) {
  const std::string dir = WorkDir("open_dir");
  const std::string lib = StandIn(dir, 0644);
  ::chmod(dir.c_str(), 0775);
  const std::string log = RunProbe({"--cel-library=" + lib}, WorkDir("open_dir_log"));
  EXPECT_THAT(log, HasSubstr("compile error: CEL library \"" + lib + "\": its directory \"" + dir +
                             "\" is writable by group or others (mode 0775)"));
}

TEST(CelSandboxTest, AMissingLibraryIsNotFatal) {
  const std::string dir = WorkDir("missing");
  const std::string lib = dir + "/absent/libstowage_cel.so";
  const std::string log = RunProbe({"--cel-library=" + lib}, dir);
  EXPECT_THAT(log, HasSubstr("compile error: CEL library \"" + lib + "\""));
  EXPECT_THAT(log, HasSubstr("does not exist"));
}

// The stowage binary of the build tree finds build/cmd/lib/stowage/libstowage_cel.so by itself,
// says so once at start-up, enters the sandbox and stops on SIGTERM with exit code 0.
TEST(CelSandboxTest, StowageFindsTheBuildTreeLibrary) {
  const std::string dir = WorkDir("stowage");
  const std::string kubeconfig = dir + "/kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\n"
                               "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9', "
                               "certificate-authority: /etc/ssl/certs/ca-certificates.crt}}]\n"
                               "contexts: [{name: c, context: {cluster: c, user: u}}]\n"
                               "users: [{name: u, user: {}}]\ncurrent-context: c\n";
  ::unsetenv("STOWAGE_CEL_LIBRARY");
  testing::Process p;
  ASSERT_TRUE(p.Start({STOWAGE_BINARY, "--kubeconfig=" + kubeconfig, "--leader-elect=false",
                       "--secure-port=0"},
                      dir + "/stowage.log")
                  .ok());
  // Signalled once its informers run, as a stowage that waits for its caches.
  ASSERT_TRUE(p.WaitForLog("starting stowage against", 60s)) << p.Log();
  EXPECT_THAT(p.Log(), HasSubstr("sandbox entered"));
  // /proc/self/exe's directory's parent, as DefaultLibraryPath has it (no "..": the checks
  // refuse it).
  const std::string expected =
      std::filesystem::path(STOWAGE_BINARY).parent_path().parent_path().string() +
      "/lib/stowage/libstowage_cel.so";
  EXPECT_THAT(p.Log(), HasSubstr("CEL library for DRA device selectors: " + expected +
                                 " (loaded at the first selector)"));
  EXPECT_THAT(p.Log(), Not(HasSubstr("DRA device selectors cannot be evaluated")));
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(15s), 0) << p.Log();
}

}  // namespace
}  // namespace stowage::cel_sandbox_test
