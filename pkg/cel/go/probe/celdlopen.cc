// celdlopen: the Go CEL bridge built with -buildmode=c-shared and loaded with dlopen only
// after the process confined itself (docs/cel.md): do the Go runtime's threads inherit the
// confinement and the signal mask?
//
//   celdlopen LIBRARY SECCOMP_LIST
#include <dirent.h>
#include <dlfcn.h>
#include <linux/capability.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

std::string Field(const std::string& file, const char* key) {
  std::ifstream f(file);
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line)) {
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') {
      size_t i = n + 1;
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      return line.substr(i);
    }
  }
  return "?";
}

void Threads(const char* when) {
  std::printf("%s:\n", when);
  DIR* d = opendir("/proc/self/task");
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string s = std::string("/proc/self/task/") + e->d_name + "/status";
    std::printf("  tid %-8s Seccomp %s CapEff %s SigBlk %s\n", e->d_name,
                Field(s, "Seccomp").c_str(), Field(s, "CapEff").c_str(),
                Field(s, "SigBlk").c_str());
  }
  closedir(d);
}

std::atomic<int> g_got{0};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: celdlopen LIBRARY SECCOMP_LIST\n");
    return 2;
  }
  Threads("at main()");
  // stowage's order: the signal mask, capabilities, seccomp (TSYNC) on one thread.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  syscall(SYS_capset, &header, data);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  std::ifstream f(argv[2]);
  std::string name;
  while (f >> name) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr != __NR_SCMP_ERROR) seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
  }
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  std::printf("seccomp_load: %d\n", seccomp_load(ctx));
  std::thread([sigs] {
    for (;;) {
      int sig = 0;
      sigwait(&sigs, &sig);
      g_got = sig;
    }
  }).detach();

  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("dlopen: %s\n", dlerror());
    return 1;
  }
  using Compile = int64_t (*)(const char*, size_t, char**);
  using Eval = int (*)(int64_t, const char*, size_t, int, uint64_t*, char**);
  auto compile = reinterpret_cast<Compile>(dlsym(lib, "stowage_cel_compile"));
  auto eval = reinterpret_cast<Eval>(dlsym(lib, "stowage_cel_eval"));
  const std::string expr = R"(device.attributes["gpu.example.com"].model == "a100")";
  const char json[] = R"({"driver":"gpu.example.com","attributes":{"model":{"string":"a100"}}})";
  char* err = nullptr;
  int64_t h = compile(expr.data(), expr.size(), &err);
  uint64_t cost = 0;
  int r = 0;
  for (int i = 0; i < 300000; ++i) r = eval(h, json, sizeof json - 1, 1, &cost, &err);
  std::printf("evaluated: %d (cost %llu)\n", r, static_cast<unsigned long long>(cost));
  Threads("after dlopen and 300k evaluations");
  for (int sig : {SIGUSR2, SIGTERM}) {
    g_got = 0;
    std::fflush(stdout);
    kill(getpid(), sig);
    for (int i = 0; i < 100 && g_got == 0; ++i) usleep(10000);
    std::printf("kill(getpid(), %d): %s\n", sig, g_got == sig ? "received by sigwait" : "lost");
  }
  return 0;
}
