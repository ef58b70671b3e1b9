#include "pkg/metrics/process.h"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace stowage::metrics {
namespace {

FamilyDesc Desc(std::string name, std::string help, Type type) {
  return {std::move(name), std::move(help), type, Stability::kNone, {}, {}};
}

std::optional<std::string> Slurp(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Fields of /proc/self/stat after the command name (which may contain spaces), so that
// fields[0] is field 3 (state) of proc(5).
std::vector<std::string> StatFields() {
  auto stat = Slurp("/proc/self/stat");
  std::vector<std::string> fields;
  if (!stat) return fields;
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(stat->substr(close + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

std::optional<double> Field(const std::vector<std::string>& fields, size_t proc5_index) {
  size_t i = proc5_index - 3;
  if (i >= fields.size()) return std::nullopt;
  double v = 0;
  auto r = std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), v);
  if (r.ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<double> BootTime() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
  }
  return std::nullopt;
}

// The soft limit of a /proc/self/limits row ("unlimited" as Go reports it: 2^64-1).
std::optional<double> SoftLimit(const std::string& row_name) {
  std::ifstream in("/proc/self/limits");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(row_name, 0) != 0) continue;
    std::istringstream rest(line.substr(row_name.size()));
    std::string soft;
    rest >> soft;
    if (soft == "unlimited") return 18446744073709551615.0;
    double v = 0;
    auto r = std::from_chars(soft.data(), soft.data() + soft.size(), v);
    if (r.ec != std::errc()) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::optional<double> OpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return std::nullopt;
  double n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') n++;
  }
  closedir(d);
  return n - 1;  // the descriptor opendir itself holds
}

// Total received and transmitted bytes over the interfaces of /proc/self/net/dev.
std::optional<std::pair<double, double>> NetBytes() {
  std::ifstream in("/proc/self/net/dev");
  if (!in) return std::nullopt;
  double rx = 0, tx = 0;
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream fields(line.substr(colon + 1));
    double v[9] = {};
    for (double& x : v) fields >> x;
    rx += v[0];
    tx += v[8];
  }
  return std::make_pair(rx, tx);
}

}  // namespace

std::vector<FamilyDesc> ProcessFamilyDescs() {
  return {
      Desc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
           Type::kCounter),
      Desc("process_max_fds", "Maximum number of open file descriptors.", Type::kGauge),
      Desc("process_network_receive_bytes_total",
           "Number of bytes received by the process over the network.", Type::kCounter),
      Desc("process_network_transmit_bytes_total",
           "Number of bytes sent by the process over the network.", Type::kCounter),
      Desc("process_open_fds", "Number of open file descriptors.", Type::kGauge),
      Desc("process_resident_memory_bytes", "Resident memory size in bytes.", Type::kGauge),
      Desc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
           Type::kGauge),
      Desc("process_virtual_memory_bytes", "Virtual memory size in bytes.", Type::kGauge),
      Desc("process_virtual_memory_max_bytes",
           "Maximum amount of virtual memory available in bytes.", Type::kGauge),
  };
}

std::vector<prometheus::MetricFamily> CollectProcess() {
  std::vector<FamilyDesc> descs = ProcessFamilyDescs();
  std::vector<prometheus::MetricFamily> out;
  auto emit = [&](size_t i, std::optional<double> v) {
    if (!v) return;
    const FamilyDesc& d = descs[i];
    prometheus::MetricFamily f{
        d.name,
        d.help,
        d.type == Type::kCounter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge,
        {}};
    prometheus::ClientMetric m;
    (d.type == Type::kCounter ? m.counter.value : m.gauge.value) = *v;
    f.metric.push_back(m);
    out.push_back(std::move(f));
  };
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  std::vector<std::string> stat = StatFields();
  auto utime = Field(stat, 14), stime = Field(stat, 15), start = Field(stat, 22);
  auto vsize = Field(stat, 23), rss = Field(stat, 24);
  auto boot = BootTime();
  auto net = NetBytes();
  emit(0, utime && stime ? std::optional<double>((*utime + *stime) / ticks) : std::nullopt);
  emit(1, SoftLimit("Max open files"));
  emit(2, net ? std::optional<double>(net->first) : std::nullopt);
  emit(3, net ? std::optional<double>(net->second) : std::nullopt);
  emit(4, OpenFds());
  emit(5, rss ? std::optional<double>(*rss * page) : std::nullopt);
  emit(6, start && boot ? std::optional<double>(*boot + *start / ticks) : std::nullopt);
  emit(7, vsize);
  emit(8, SoftLimit("Max address space"));
  return out;
}

void RegisterProcessCollector(Registry& registry) {
  registry.AddCollector(ProcessFamilyDescs(), &CollectProcess);
}

}  // namespace stowage::metrics
