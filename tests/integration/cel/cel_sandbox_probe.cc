// cel_sandbox_probe: stowage's own start-up steps around the CEL bridge, without the API server.
// It checks the library as stowage does (Process::CheckCelLibrary, --cel-library), enters the
// sandbox (Process::EnterSandbox: seccomp, no capabilities, no_new_privs, Landlock), takes
// SIGTERM/SIGINT as stowage does (SignalWatcher), and only then loads the bridge by compiling
// selectors with an Engine over DefaultLibraryPath(), as the DynamicResources plugin does.
// It prints one line per result, "ready", then waits for SIGTERM and exits 0. Run by
// cel_sandbox_test.cc; the report lines (rss_kb, threads, load_ms) are what docs/cel.md quotes.
//
// Usage: cel_sandbox_probe [--cel-library=PATH] [--sandbox=false]
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include "cmd/stowage/app/options.h"
#include "cmd/stowage/app/process.h"
#include "cmd/stowage/app/signal_watcher.h"
#include "pkg/cel/engine.h"
#include "pkg/config/types.h"

namespace {

using stowage::api::Device;
using stowage::cel::Engine;

// A /proc/self/status field ("VmRSS", "Threads") as its first number.
long StatusField(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

// Whether every thread of the process is confined: the line names the first one that is not.
std::string Confinement() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return "cannot list /proc/self/task";
  std::string out;
  int threads = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    ++threads;
    std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/status");
    std::string seccomp, nnp, cap;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Seccomp:", 0) == 0) seccomp = line.substr(8);
      if (line.rfind("NoNewPrivs:", 0) == 0) nnp = line.substr(11);
      if (line.rfind("CapEff:", 0) == 0) cap = line.substr(7);
    }
    if (out.empty() &&
        (seccomp.find('2') == std::string::npos || nnp.find('1') == std::string::npos ||
         cap.find("0000000000000000") == std::string::npos)) {
      out = std::string("thread ") + e->d_name + " not confined: Seccomp" + seccomp +
            " NoNewPrivs" + nnp + " CapEff" + cap;
    }
  }
  ::closedir(dir);
  return out.empty() ? "all " + std::to_string(threads) + " threads confined" : out;
}

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

std::string Outcome(const stowage::StatusOr<bool>& r) {
  if (!r.ok()) return "error: " + std::string(r.status().message());
  return *r ? "true" : "false";
}

}  // namespace

int main(int argc, char** argv) {
  stowage::app::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.rfind("--cel-library=", 0) == 0) options.cel_library = a.substr(14);
    if (a == "--sandbox=false") options.sandbox = false;
  }
  stowage::config::KubeSchedulerConfiguration cfg;
  stowage::app::Process process(options, cfg);
  process.CheckCelLibrary();
  if (!process.EnterSandbox()) return 1;
  stowage::app::SignalWatcher signals;  // as Process::WatchSignals
  signal(SIGPIPE, SIG_IGN);
  Say("library " + Engine::DefaultLibraryPath());

  const long rss_before = StatusField("VmRSS");
  const long threads_before = StatusField("Threads");
  Engine engine;
  const auto start = std::chrono::steady_clock::now();
  auto always = engine.Compile("device.driver == \"gpu.example.com\"");
  const auto loaded = std::chrono::steady_clock::now();
  if (!always.ok()) {
    Say("compile error: " + std::string(always.status().message()));
  } else {
    Say("rss_kb before " + std::to_string(rss_before) + " after " +
        std::to_string(StatusField("VmRSS")));
    Say("threads before " + std::to_string(threads_before) + " after " +
        std::to_string(StatusField("Threads")));
    Say("load_ms " +
        std::to_string(
            std::chrono::duration_cast<std::chrono::milliseconds>(loaded - start).count()));
    Device d;
    d.name = "gpu-0";
    d.attributes = stowage::api::Map<stowage::api::DeviceAttribute>(
        {{"model", stowage::api::DeviceAttribute{.string_value = "a100"}}});
    Say("true-case " + Outcome(always->Matches(d, "gpu.example.com")));
    Say("false-case " + Outcome(always->Matches(d, "other.example.com")));
    auto missing = engine.Compile("device.attributes[\"gpu.example.com\"].missing == \"x\"");
    Say("runtime-error " + (missing.ok() ? Outcome(missing->Matches(d, "gpu.example.com"))
                                         : "compile: " + std::string(missing.status().message())));
    std::string nested = "a + b + c + d + e + f >= 0";
    for (const char* v : {"f", "e", "d", "c", "b", "a"}) {
      nested = "[0,1,2,3,4,5,6,7,8,9].all(" + std::string(v) + ", " + nested + ")";
    }
    auto costly = engine.Compile(nested);
    Say("cost-limit " + (costly.ok() ? Outcome(costly->Matches(d, "gpu.example.com"))
                                     : "compile: " + std::string(costly.status().message())));
    auto bad = engine.Compile("device.driver ==");
    Say("compile-error " + std::string(bad.ok() ? "none" : bad.status().message()));
    // Go's threads, once running, must be as confined as the thread that loaded it.
    if (options.sandbox) Say(Confinement());
    // The probe itself is beneath no Landlock rule (the build tree), so reading it must fail.
    std::ifstream self(argv[0]);
    Say(std::string("outside-landlock ") + (self ? "readable" : "unreadable"));
  }
  Say("ready");
  const std::stop_token stop = signals.token();
  const auto waited = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (std::chrono::steady_clock::now() - waited > std::chrono::minutes(2)) return 3;
  }
  // The bridge still answers after the signal: Go's threads were not disturbed by it.
  if (always.ok()) {
    Device d;
    Say("after-signal " + Outcome(always->Matches(d, "gpu.example.com")));
  }
  Say("stopping");
  return 0;
}
