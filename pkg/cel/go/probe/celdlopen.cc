// celdlopen: the Go CEL bridge built with -buildmode=c-shared and loaded with dlopen only
// after the process confined itself (docs/cel.md): do the Go runtime's threads inherit the
// confinement and the signal mask?
//
//   celdlopen LIBRARY SECCOMP_LIST [--memfd] [--landlock]
//
// With --memfd the library is copied into a memfd before the process confines itself and
// loaded from /proc/self/fd/N after, as a binary embedding it would do. With --landlock the
// process also restricts itself as pkg/sandbox/landlock.cc does: read-only beneath /etc, /usr,
// /lib, /lib64, /proc, /dev and the library's directory, nothing else.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

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

bool Landlock(const std::string& library_dir) {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return false;
  uint64_t handled = (static_cast<uint64_t>(LANDLOCK_ACCESS_FS_MAKE_SYM) << 1) - 1;
  if (abi >= 2) handled |= 1ULL << 13;  // REFER
  if (abi >= 3) handled |= 1ULL << 14;  // TRUNCATE
  if (abi >= 5) handled |= 1ULL << 15;  // IOCTL_DEV
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = handled;
  const int fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr.handled_access_fs, 0);
  if (fd < 0) return false;
  for (const std::string& d :
       {std::string("/etc"), std::string("/usr"), std::string("/lib"), std::string("/lib64"),
        std::string("/proc"), std::string("/dev"), library_dir}) {
    landlock_path_beneath_attr pb{};
    pb.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    pb.parent_fd = open(d.c_str(), O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0) continue;
    syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(pb.parent_fd);
  }
  const bool ok = syscall(SYS_landlock_restrict_self, fd, 0) == 0;
  close(fd);
  std::printf("Landlock ABI %ld: %s\n", abi, ok ? "restricted" : "failed");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: celdlopen LIBRARY SECCOMP_LIST [--memfd]\n");
    return 2;
  }
  Threads("at main()");
  std::vector<std::string> allowed;  // read before Landlock denies it
  {
    std::ifstream f(argv[2]);
    for (std::string name; f >> name;) allowed.push_back(name);
  }
  std::string path = argv[1];
  bool memfd = false, landlock = false;
  for (int i = 3; i < argc; ++i) {
    memfd |= std::string(argv[i]) == "--memfd";
    landlock |= std::string(argv[i]) == "--landlock";
  }
  if (memfd) {
    std::ifstream in(argv[1], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const int fd = memfd_create("stowage_cel", MFD_CLOEXEC);
    if (fd < 0 || write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
      std::printf("memfd: %s\n", std::strerror(errno));
      return 1;
    }
    path = "/proc/self/fd/" + std::to_string(fd);
    std::printf("library copied to %s (%zu bytes)\n", path.c_str(), bytes.size());
  }
  // stowage's order: the signal mask, capabilities, seccomp (TSYNC) on one thread.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (landlock) {
    const std::string lib = argv[1];
    Landlock(lib.substr(0, lib.rfind('/')));
    std::printf("open(/root/.bashrc) after Landlock: %s\n",
                open("/root/.bashrc", O_RDONLY) < 0 ? std::strerror(errno) : "opened");
  }
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  syscall(SYS_capset, &header, data);
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  for (const std::string& name : allowed) {
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

  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("dlopen: %s\n", dlerror());
    return 1;
  }
  using Compile = int64_t (*)(const char*, size_t, char**);
  using Eval = int (*)(int64_t, const char*, size_t, int, int64_t, uint64_t*, char**);
  auto compile = reinterpret_cast<Compile>(dlsym(lib, "stowage_cel_compile"));
  auto eval = reinterpret_cast<Eval>(dlsym(lib, "stowage_cel_eval"));
  const std::string expr = R"(device.attributes["gpu.example.com"].model == "a100")";
  const char json[] = R"({"driver":"gpu.example.com","attributes":{"model":{"string":"a100"}}})";
  char* err = nullptr;
  int64_t h = compile(expr.data(), expr.size(), &err);
  uint64_t cost = 0;
  int r = 0;
  for (int i = 0; i < 300000; ++i) r = eval(h, json, sizeof json - 1, 1, 0, &cost, &err);
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
