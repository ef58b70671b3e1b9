// celprobe: measures the Go CEL bridge from a C++ process (docs/cel.md).
//
//   celprobe bench            per-evaluation and compile costs, RSS, threads
//   celprobe corpus           results and error texts for a small corpus
//   celprobe signals          handlers the Go runtime installs; SIGTERM with sigwait
//   celprobe seccomp LIST     the workload under a seccomp filter built from LIST
//   celprobe threads          thread count at main() (no CEL call)
//
// Built with -DCELPROBE_NO_GO it links no Go code (a baseline for size and RSS).
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifndef CELPROBE_NO_GO
#include "pkg/cel/go/stowage_cel.h"
#endif

namespace {

std::string StatusField(const char* key) {
  std::ifstream f("/proc/self/status");
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

void Report(const char* when) {
  std::printf("%-28s VmRSS %-10s Threads %s\n", when, StatusField("VmRSS").c_str(),
              StatusField("Threads").c_str());
}

// Process CPU time: the machine the figures come from is shared, so wall time is noisy.
double NowNs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#ifdef CELPROBE_EARLY_BLOCK
// Blocks the signals stowage sigwaits for before the Go runtime's initializer runs (an
// unprioritised .init_array entry), so that the threads it starts inherit the mask.
__attribute__((constructor(101))) void BlockEarly() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &s, nullptr);
}
#endif

#ifndef CELPROBE_NO_GO

// The flat encoding of stowage_cel.h.
class Flat {
 public:
  void U8(uint8_t v) { b_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) { b_.append(reinterpret_cast<const char*>(&v), 4); }
  void I64(int64_t v) { b_.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    b_ += s;
  }
  const std::string& bytes() const { return b_; }

 private:
  std::string b_;
};

// A GPU-like device: 4 attributes, 1 capacity; `extra` adds padding attributes.
std::string FlatDevice(int extra = 0) {
  Flat f;
  f.Str("gpu.example.com");
  f.U8(0);
  f.U32(4 + extra);
  f.Str("model");
  f.U8(3);
  f.Str("a100");
  f.Str("gpu.example.com/index");
  f.U8(1);
  f.I64(3);
  f.Str("driverVersion");
  f.U8(4);
  f.Str("1.2.3");
  f.Str("healthy");
  f.U8(2);
  f.U8(1);
  for (int i = 0; i < extra; ++i) {
    f.Str("attr" + std::to_string(i));
    f.U8(1);
    f.I64(i);
  }
  f.U32(1);
  f.Str("memory");
  f.Str("80Gi");
  return f.bytes();
}

const char kJsonDevice[] =
    R"({"driver":"gpu.example.com","attributes":{"model":{"string":"a100"},)"
    R"("gpu.example.com/index":{"int":3},"driverVersion":{"version":"1.2.3"},)"
    R"("healthy":{"bool":true}},"capacity":{"memory":{"value":"80Gi"}}})";

const char* const kSelectors[] = {
    R"(device.driver == "gpu.example.com")",
    R"(device.attributes["gpu.example.com"].model == "a100")",
    R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
    R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")))",
    R"(cel.bind(d, device.attributes["gpu.example.com"], d.model == "a100" && d.index < 8 && d.healthy))",
};

int64_t Compile(const std::string& e) {
  char* err = nullptr;
  int64_t h = stowage_cel_compile(e.data(), e.size(), &err);
  if (h == 0) {
    std::printf("compile error: %s\n", err);
    std::free(err);
  }
  return h;
}

int Bench() {
  Report("main (before any CEL call)");
  double t0 = NowNs();
  int64_t first = Compile(kSelectors[0]);
  double t1 = NowNs();
  std::printf("first compile (env build + compile): %.2f CPU ms\n", (t1 - t0) / 1e6);
  Report("after first compile");
  std::vector<int64_t> progs;
  for (const char* s : kSelectors) {
    const int reps = 50;
    int64_t h = 0;
    double a = NowNs();
    for (int i = 0; i < reps; ++i) {
      if (h) stowage_cel_release(h);
      h = Compile(s);
    }
    std::printf("compile %-95s %8.1f CPU us\n", s, (NowNs() - a) / reps / 1e3);
    progs.push_back(h);
  }
  (void)first;
  const std::string flat = FlatDevice();
  const std::string json = kJsonDevice;
  char* err = nullptr;
  int64_t dev = stowage_cel_device(flat.data(), flat.size(), STOWAGE_CEL_FLAT, &err);
  if (dev == 0) {
    std::printf("device: %s\n", err);
    return 1;
  }
  const int n = 200000;
  std::printf("%-95s %10s %10s %10s %6s\n", "CPU ns per evaluation", "handle", "flat", "json",
              "cost");
  for (size_t i = 0; i < progs.size(); ++i) {
    uint64_t cost = 0;
    double a = NowNs();
    for (int k = 0; k < n; ++k) {
      if (stowage_cel_eval_device(progs[i], dev, 0, &cost, &err) != 1) {
        std::printf("unexpected result: %s\n", err ? err : "false");
        return 1;
      }
    }
    double b = NowNs();
    for (int k = 0; k < n; ++k) {
      if (stowage_cel_eval(progs[i], flat.data(), flat.size(), STOWAGE_CEL_FLAT, 0, &cost, &err) !=
          1)
        return 1;
    }
    double c = NowNs();
    for (int k = 0; k < n; ++k) {
      if (stowage_cel_eval(progs[i], json.data(), json.size(), STOWAGE_CEL_JSON, 0, &cost, &err) !=
          1)
        return 1;
    }
    double d = NowNs();
    std::printf("%-95s %10.0f %10.0f %10.0f %6llu\n", kSelectors[i], (b - a) / n, (c - b) / n,
                (d - c) / n, static_cast<unsigned long long>(cost));
  }
  // A device with 64 attributes (the per-device maximum is 32 attributes + capacities in v1,
  // so this is an upper bound for the conversion cost upstream pays on every call).
  {
    const std::string big = FlatDevice(28);
    int64_t bigdev = stowage_cel_device(big.data(), big.size(), STOWAGE_CEL_FLAT, &err);
    uint64_t cost = 0;
    double a = NowNs();
    for (int k = 0; k < n; ++k) stowage_cel_eval_device(progs[1], bigdev, 0, &cost, &err);
    double b = NowNs();
    for (int k = 0; k < n; ++k)
      stowage_cel_eval(progs[1], big.data(), big.size(), STOWAGE_CEL_FLAT, 0, &cost, &err);
    double c = NowNs();
    std::printf("%-95s %10.0f %10.0f %10s\n", "selector 2 on a device with 32 attributes",
                (b - a) / n, (c - b) / n, "-");
  }
  Report("after 3M evaluations");
  // 1M more on the handle path, then two threads in parallel.
  uint64_t cost = 0;
  for (int k = 0; k < 1000000; ++k) stowage_cel_eval_device(progs[4], dev, 0, &cost, &err);
  Report("after 1M more (handle)");
  std::atomic<long> done{0};
  double a = NowNs();
  std::vector<std::thread> ts;
  for (int t = 0; t < 2; ++t) {
    ts.emplace_back([&] {
      uint64_t c = 0;
      char* e = nullptr;
      for (int k = 0; k < n; ++k) stowage_cel_eval_device(progs[4], dev, 0, &c, &e);
      done += n;
    });
  }
  for (auto& t : ts) t.join();
  std::printf("2 C++ threads, selector 5 by handle: %.0f CPU ns per evaluation\n",
              (NowNs() - a) / done.load());
  Report("after 2-thread run");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  Report("idle 3 s later");
  return 0;
}

void Run(const char* expr, const std::string& flat) {
  char* err = nullptr;
  const std::string e = expr;
  int64_t h = stowage_cel_compile(e.data(), e.size(), &err);
  if (h == 0) {
    std::printf("%s\n  => compile error: %s\n", expr, err);
    std::free(err);
    return;
  }
  uint64_t cost = 0;
  double a = NowNs();
  int r = stowage_cel_eval(h, flat.data(), flat.size(), STOWAGE_CEL_FLAT, 0, &cost, &err);
  double ms = (NowNs() - a) / 1e6;
  if (r < 0) {
    std::printf("%s\n  => runtime error (cost %llu, %.1f ms): %s\n", expr,
                static_cast<unsigned long long>(cost), ms, err);
    std::free(err);
  } else {
    std::printf("%s\n  => %s (cost %llu)\n", expr, r ? "true" : "false",
                static_cast<unsigned long long>(cost));
  }
  stowage_cel_release(h);
}

int Corpus() {
  const std::string flat = FlatDevice();
  const char* const exprs[] = {
      R"(device.driver ==)",
      R"(device.driver)",
      R"(device.attributes["gpu.example.com"].missing == 1)",
      R"(device.attributes["other.example.com"].model == "a100")",
      R"(device.attributes["gpu.example.com"].?missing.orValue(1) == 1)",
      R"(device.attributes["gpu.example.com"].model.matches("^a[0-9]+$"))",
      R"(device.attributes["gpu.example.com"].model.matches("("))",
      R"(device.allowMultipleAllocations == false)",
      R"(device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Ti")))",
      R"("a,b".split(",").size() == 2 && [1,2,3].sum() == 6)",
      R"(semver("1.2.3") < semver("1.10.0"))",
      R"(isSemver("v1.0") || ip("10.0.0.1").family() == 4)",
      R"(1 / (device.attributes["gpu.example.com"].index - 3) == 0)",
      R"([0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, [0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, a + b + c + d + e + f >= 0)))))))",
  };
  for (const char* e : exprs) Run(e, flat);
  return 0;
}

#endif  // CELPROBE_NO_GO

const char* SigName(int s) {
  static char buf[16];
  if (s >= SIGRTMIN && s <= SIGRTMAX) {
    std::snprintf(buf, sizeof buf, "SIGRTMIN+%d", s - SIGRTMIN);
    return buf;
  }
  const char* a = sigabbrev_np(s);
  return a ? a : "?";
}

void PrintHandlers(const char* when) {
  std::printf("%s: signals with a handler:", when);
  for (int s = 1; s < NSIG; ++s) {
    struct sigaction sa;
    if (sigaction(s, nullptr, &sa) != 0) continue;
    if (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN) continue;
    std::printf(" %s%s", SigName(s), (sa.sa_flags & SA_ONSTACK) ? "" : "(no SA_ONSTACK)");
  }
  std::printf("\n");
}

// stowage's SignalWatcher: block SIGTERM, SIGINT, SIGUSR2 and sigwait in a thread.
std::atomic<int> g_got{0};

int Signals() {
  PrintHandlers("at main()");
  std::printf("SigCgt %s SigBlk %s\n", StatusField("SigCgt").c_str(),
              StatusField("SigBlk").c_str());
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  std::thread([sigs] {
    for (;;) {
      int sig = 0;
      sigwait(&sigs, &sig);
      g_got = sig;
    }
  }).detach();
#ifndef CELPROBE_NO_GO
  const std::string flat = FlatDevice();
  int64_t h = Compile(kSelectors[4]);
  char* err = nullptr;
  uint64_t cost = 0;
  for (int i = 0; i < 200000; ++i) stowage_cel_eval(h, flat.data(), flat.size(), 0, 0, &cost, &err);
  PrintHandlers("after CEL work");
#endif
  std::printf("Threads %s\n", StatusField("Threads").c_str());
  for (int sig : {SIGUSR2, SIGTERM}) {
    g_got = 0;
    std::fflush(stdout);
    kill(getpid(), sig);
    for (int i = 0; i < 100 && g_got == 0; ++i) usleep(10000);
    std::printf("kill(getpid(), %s): %s\n", SigName(sig),
                g_got == sig ? "received by sigwait" : "NOT received by sigwait");
  }
  return 0;
}

int Seccomp(const char* list) {
  std::ifstream f(list);
  std::string name;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  int n = 0;
  while (f >> name) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) continue;
    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
    ++n;
  }
  seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  int rc = seccomp_load(ctx);
  std::printf("seccomp: %d syscalls allowed, load rc %d, Threads %s\n", n, rc,
              StatusField("Threads").c_str());
#ifndef CELPROBE_NO_GO
  return Bench();
#else
  return 0;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "bench";
  if (mode == "threads") {
    Report("main");
    return 0;
  }
  if (mode == "signals") return Signals();
  if (mode == "seccomp" && argc > 2) return Seccomp(argv[2]);
#ifndef CELPROBE_NO_GO
  if (mode == "corpus") return Corpus();
  if (mode == "bench") return Bench();
#endif
  std::fprintf(stderr, "usage: celprobe bench|corpus|signals|threads|seccomp LIST\n");
  return 2;
}
