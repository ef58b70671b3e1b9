// Process: a child process started by a test (the stowage binary, upstream kube-scheduler),
// with stdout and stderr appended to a log file the test can read and search. The destructor
// kills what is still running, so a failing test leaves no process behind. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::testing {

class Process {
 public:
  Process() = default;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();

  // Starts argv[0] with argv; env entries ("NAME=value") are added to the environment, each
  // replacing an inherited variable of the same name.
  Status Start(const std::vector<std::string>& argv, const std::string& log_path,
               const std::vector<std::string>& env = {});
  void Signal(int sig);
  // Waits for the exit; the exit code, 128+signal when killed, or nullopt after the timeout.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  bool running();
  pid_t pid() const { return pid_; }

  std::string Log() const;
  // Polls the log until it contains text; false after the timeout.
  bool WaitForLog(std::string_view text, std::chrono::milliseconds timeout) const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::string log_path_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

}  // namespace stowage::testing
