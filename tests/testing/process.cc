#include "tests/testing/process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "pkg/common/file.h"

extern char** environ;

namespace stowage::testing {

Process::~Process() {
  if (pid_ > 0 && !exit_code_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

Status Process::Start(const std::vector<std::string>& argv, const std::string& log_path,
                      const std::vector<std::string>& env) {
  log_path_ = log_path;
  exit_code_.reset();
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  // An entry of env replaces the inherited variable of its name: most programs read the first.
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view inherited(*e);
    const std::string_view name = inherited.substr(0, inherited.find('='));
    bool replaced = false;
    for (const auto& x : env)
      replaced |=
          x.size() > name.size() && x.compare(0, name.size(), name) == 0 && x[name.size()] == '=';
    if (!replaced) envs.emplace_back(*e);
  }
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> cenv;
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  int rc = posix_spawn(&pid_, cargv[0], &fa, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    pid_ = -1;
    return InternalError("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  return OkStatus();
}

void Process::Signal(int sig) {
  if (pid_ > 0 && !exit_code_) kill(pid_, sig);
}

std::optional<int> Process::Wait(std::chrono::milliseconds timeout) {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool Process::running() { return pid_ > 0 && !Wait(std::chrono::milliseconds(0)); }

std::string Process::Log() const {
  auto text = ReadFile(log_path_);
  return text.ok() ? *text : std::string();
}

bool Process::WaitForLog(std::string_view text, std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Log().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Log().find(text) != std::string::npos;
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace stowage::testing
