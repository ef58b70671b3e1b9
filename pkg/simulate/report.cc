// The renderers of simulate.h: an aligned table for people, JSON for tools. Neither prints the
// real time a run took, so the same inputs give the same bytes.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "pkg/common/text_table.h"
#include "pkg/simulate/simulate.h"

namespace stowage::simulate {
namespace {

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  return Fixed(100.0 * static_cast<double>(part) / static_cast<double>(whole), 0) + "%";
}

std::string Mi(int64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + "Mi"; }

}  // namespace

std::string RenderText(const Result& r) {
  size_t bound = 0;
  for (const auto& p : r.pods) bound += !p.node.empty();
  std::string out = "Simulated " + std::to_string(r.pods.size()) + " pending pod(s) on " +
                    std::to_string(r.nodes) + " node(s): " + std::to_string(bound) + " bound, " +
                    std::to_string(r.pods.size() - bound) + " pending, " +
                    std::to_string(r.preempted.size()) + " preempted, in " +
                    Fixed(r.virtual_seconds, 0) + " s of virtual time (seed " +
                    std::to_string(r.seed) + " breaks ties)\n";
  if (r.stopped_early) {
    out += "The run stopped at its time limit with pods still being retried.\n";
  }
  for (const auto& w : r.warnings) out += "Warning: " + w + "\n";
  for (const auto& [kind, n] : r.skipped) {
    out += "Left out: " + std::to_string(n) + " " + kind + " object(s), which no plugin reads\n";
  }
  std::vector<std::vector<std::string>> rows{{"POD", "NODE", "AT", "RESULT"}};
  for (const auto& p : r.pods) {
    if (!p.node.empty()) {
      rows.push_back({p.pod, p.node, Fixed(p.bound_at, 0) + "s", "bound"});
      continue;
    }
    std::string why = p.reason.empty() ? "pending" : "pending (" + p.reason + ")";
    if (!p.nominated_node.empty()) why += ", nominated to " + p.nominated_node;
    if (!p.message.empty()) why += ": " + p.message;
    rows.push_back({p.pod, "-", "-", why});
  }
  out += "\nPods:\n";
  AppendAlignedTable(out, rows, {false, false, true});
  if (!r.preempted.empty()) {
    rows = {{"VICTIM", "NODE", "AT", "EVENT"}};
    for (const auto& v : r.preempted) {
      rows.push_back({v.pod, v.node, Fixed(v.at, 0) + "s", v.message});
    }
    out += "\nPreempted:\n";
    AppendAlignedTable(out, rows, {false, false, true});
  }
  if (!r.displaced.empty()) {
    rows = {{"POD", "FROM", "NOW"}};
    for (const auto& d : r.displaced) {
      rows.push_back({d.pod, d.node, d.recreated ? "pending again (its controller's)" : "gone"});
    }
    out += "\nTaken off removed or drained nodes:\n";
    AppendAlignedTable(out, rows);
  }
  rows = {{"NODE", "PODS", "CPU REQUESTED", "CPU", "MEMORY REQUESTED", "MEMORY"}};
  for (const auto& u : r.utilisation) {
    rows.push_back(
        {u.node + (u.unschedulable ? " (cordoned)" : ""),
         std::to_string(u.pods_before) + " -> " + std::to_string(u.pods_after) + "/" +
             std::to_string(u.allocatable_pods),
         std::to_string(u.milli_cpu_before) + "m -> " + std::to_string(u.milli_cpu_after) + "m/" +
             std::to_string(u.allocatable_milli_cpu) + "m",
         Percent(u.milli_cpu_after, u.allocatable_milli_cpu),
         Mi(u.memory_before) + " -> " + Mi(u.memory_after) + "/" + Mi(u.allocatable_memory),
         Percent(u.memory_after, u.allocatable_memory)});
  }
  out += "\nNodes (before -> after / allocatable):\n";
  AppendAlignedTable(out, rows, {false, true, true, true, true, true});
  return out;
}

std::string RenderJson(const Result& r) {
  using json = nlohmann::ordered_json;
  json pods = json::array();
  for (const auto& p : r.pods) {
    json o{{"pod", p.pod}, {"node", p.node}};
    if (!p.node.empty()) o["boundAtSeconds"] = p.bound_at;
    if (!p.nominated_node.empty()) o["nominatedNode"] = p.nominated_node;
    if (!p.reason.empty()) o["reason"] = p.reason;
    if (!p.message.empty()) o["message"] = p.message;
    pods.push_back(std::move(o));
  }
  json preempted = json::array();
  for (const auto& v : r.preempted) {
    preempted.push_back(
        {{"pod", v.pod}, {"node", v.node}, {"atSeconds", v.at}, {"message", v.message}});
  }
  json displaced = json::array();
  for (const auto& d : r.displaced) {
    displaced.push_back({{"pod", d.pod}, {"node", d.node}, {"recreated", d.recreated}});
  }
  json nodes = json::array();
  for (const auto& u : r.utilisation) {
    nodes.push_back({{"node", u.node},
                     {"unschedulable", u.unschedulable},
                     {"pods",
                      {{"before", u.pods_before},
                       {"after", u.pods_after},
                       {"allocatable", u.allocatable_pods}}},
                     {"milliCPU",
                      {{"before", u.milli_cpu_before},
                       {"after", u.milli_cpu_after},
                       {"allocatable", u.allocatable_milli_cpu}}},
                     {"memory",
                      {{"before", u.memory_before},
                       {"after", u.memory_after},
                       {"allocatable", u.allocatable_memory}}}});
  }
  json skipped = json::object();
  for (const auto& [kind, n] : r.skipped) skipped[kind] = n;
  json doc{{"seed", r.seed},
           {"nodes", r.nodes},
           {"virtualSeconds", r.virtual_seconds},
           {"stoppedEarly", r.stopped_early},
           {"pods", pods},
           {"preempted", preempted},
           {"displaced", displaced},
           {"utilisation", nodes},
           {"skipped", skipped},
           {"warnings", r.warnings}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace stowage::simulate
