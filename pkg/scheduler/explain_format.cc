// The renderers of explain.h: an aligned table for people, JSON for tools.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/common/text_table.h"
#include "pkg/scheduler/explain.h"

namespace stowage::scheduler {

namespace {

constexpr size_t kExampleNodes = 3;

using Row = std::vector<std::string>;

std::string Victims(const PreemptionCandidate& c) {
  std::string v;
  for (const auto& p : c.victims) v += (v.empty() ? "" : ", ") + p;
  return v;
}

// What preemption would do for a pod that fits nowhere (its dry run).
void AppendPreemption(std::string& out, const Explanation& e) {
  if (!e.preemption_skipped.empty()) {
    out += "Preemption: " + e.preemption_skipped + "\n";
    return;
  }
  if (!e.preemption_ran) return;
  if (e.preemption_node.empty()) {
    out += "Preemption (dry run): no node where evicting lower-priority pods would make room\n";
    return;
  }
  for (const auto& c : e.preemption_candidates) {
    if (c.node == e.preemption_node) {
      out += "Preemption (dry run): would nominate " + c.node + " and evict " + Victims(c) + "\n";
    }
  }
  std::vector<Row> rows{{"CANDIDATE", "PDB VIOLATIONS", "VICTIMS"}};
  for (const auto& c : e.preemption_candidates) {
    rows.push_back({c.node, std::to_string(c.pdb_violations), Victims(c)});
  }
  AppendAlignedTable(out, rows, {false, true});
}

std::string Examples(const std::vector<std::string>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < kExampleNodes; ++i) s += (i ? ", " : "") + nodes[i];
  if (nodes.size() > kExampleNodes) s += ", +" + std::to_string(nodes.size() - kExampleNodes);
  return s;
}

void AppendFilter(std::string& out, const Explanation& e) {
  // Nodes grouped by identical verdicts, so thousands of nodes take a few lines.
  std::map<std::tuple<std::string, framework::Code, std::string>, std::vector<std::string>> groups;
  size_t feasible = 0;
  for (const auto& v : e.verdicts) {
    if (v.code == framework::Code::kSuccess) {
      ++feasible;
      continue;
    }
    groups[{v.plugin, v.code, v.message}].push_back(v.node);
  }
  out += "\nFilter: " + std::to_string(feasible) + " of " + std::to_string(e.num_nodes) +
         " nodes feasible\n";
  if (groups.empty()) return;
  std::vector<std::pair<const decltype(groups)::key_type*, const std::vector<std::string>*>> order;
  for (const auto& [k, nodes] : groups) order.emplace_back(&k, &nodes);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->size() > b.second->size();
  });
  std::vector<Row> rows{{"NODES", "REJECTED BY", "CODE", "REASON", "NODES E.G."}};
  for (const auto& [k, nodes] : order) {
    const auto& [plugin, code, message] = *k;
    rows.push_back({std::to_string(nodes->size()), plugin.empty() ? "-" : plugin,
                    std::string(framework::CodeName(code)), message, Examples(*nodes)});
  }
  AppendAlignedTable(out, rows, {true});
}

void AppendScores(std::string& out, const Explanation& e, size_t top) {
  if (e.scored.empty()) return;
  if (e.scored.size() == 1) {
    out += "\nScore: not scored, " + e.scored[0].node + " is the only feasible node\n";
    return;
  }
  const size_t shown = std::min(top, e.scored.size());
  out += "\nScore: " + std::to_string(e.scored.size()) + " feasible nodes, the " +
         std::to_string(shown) + " best (each plugin's cell: normalized score x weight)\n";
  Row head{"RANK", "NODE", "TOTAL"};
  std::vector<bool> right{true, false, true};
  for (size_t p = 0; p < e.score_plugins.size(); ++p) {
    head.push_back(e.score_plugins[p]);
    right.push_back(true);
  }
  bool extenders = false;
  for (const auto& s : e.scored) extenders |= s.extenders != 0;
  if (extenders) {
    head.push_back("extenders");
    right.push_back(true);
  }
  std::vector<Row> rows{head};
  for (size_t i = 0; i < shown; ++i) {
    const ScoredNode& s = e.scored[i];
    Row r{std::to_string(s.rank), s.node, std::to_string(s.total)};
    for (size_t p = 0; p < s.normalized.size(); ++p) {
      r.push_back(std::to_string(s.normalized[p]) + "x" + std::to_string(e.score_weights[p]));
    }
    if (extenders) r.push_back(std::to_string(s.extenders));
    rows.push_back(std::move(r));
  }
  AppendAlignedTable(out, rows, right);
}

}  // namespace

std::string QueueLine(const Explanation& e) {
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%.1f s", e.queued_seconds);
  std::string line = e.queue + " for " + secs + ", " + std::to_string(e.attempts) + " attempt(s)";
  if (e.queue == "backoff") {
    std::snprintf(secs, sizeof(secs), "%.1f s", e.retry_in_seconds);
    line += ", retried in " + std::string(secs);
  }
  if (!e.rejected_by.empty()) {
    line += ", last rejected by ";
    for (size_t i = 0; i < e.rejected_by.size(); ++i) line += (i ? ", " : "") + e.rejected_by[i];
  }
  if (e.queue == "scheduling") line = "being scheduled right now";
  return line;
}

std::string RenderExplanationText(const Explanation& e, size_t top) {
  std::string out =
      "Pod " + e.pod + ", profile " + e.profile + ", " + std::to_string(e.num_nodes) + " nodes\n";
  if (!e.queue.empty()) out += "Queue: " + QueueLine(e) + "\n";
  if (!e.pre_enqueue_plugin.empty()) {
    out += "PreEnqueue: held out of the queue by " + e.pre_enqueue_plugin + ": " +
           e.pre_enqueue_message + " (below: what happens once it is let in)\n";
  }
  if (e.pre_filter_code != framework::Code::kSuccess) {
    out += "PreFilter: " + std::string(framework::CodeName(e.pre_filter_code)) + " by " +
           e.pre_filter_plugin + ": " + e.pre_filter_message + "\n";
  } else if (e.pre_filter_narrowed) {
    std::string by;
    for (const auto& p : e.narrowing_plugins) by += (by.empty() ? "" : ", ") + p;
    out += "PreFilter: " + by + " narrowed the nodes to " +
           std::to_string(e.pre_filter_nodes.size()) + ": " + Examples(e.pre_filter_nodes) + "\n";
  }
  if (!e.error.empty()) return out + "Error: " + e.error + "\n";
  if (!e.verdicts.empty() && e.pre_filter_code == framework::Code::kSuccess) AppendFilter(out, e);
  AppendScores(out, e, top);
  out += "\n";
  if (!e.fit_error.empty()) {
    out += "Unschedulable: " + e.fit_error + "\n";
    AppendPreemption(out, e);
    return out;
  }
  bool nominated_feasible = false;
  for (const auto& s : e.scored) nominated_feasible |= s.node == e.nominated_node;
  if (!e.nominated_node.empty() && nominated_feasible) {
    out += "Pick: " + e.nominated_node + ", the node the pod is nominated to, which a cycle " +
           "tries first and takes when feasible\n";
  } else if (e.best.size() == 1) {
    out += "Pick: " + e.best[0] + "\n";
  } else {
    // Thousands of nodes may tie: the first few named, the rest counted (-o json lists all).
    out += "Pick: one of " + std::to_string(e.best.size()) + " tied nodes, " + Examples(e.best) +
           " (the scheduler picks among them at random)\n";
  }
  if (e.scored.size() > e.nodes_to_score) {
    out += "Note: a cycle stops at the first " + std::to_string(e.nodes_to_score) +
           " feasible nodes from a rotating start (percentageOfNodesToScore) and scores only "
           "those, so it may pick a node ranked lower here.\n";
  }
  return out;
}

std::string RenderExplanationJson(const Explanation& e) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["pod"] = e.pod;
  j["profile"] = e.profile;
  j["nodes"] = e.num_nodes;
  if (!e.pre_enqueue_plugin.empty()) {
    j["preEnqueue"] = {{"plugin", e.pre_enqueue_plugin}, {"message", e.pre_enqueue_message}};
  }
  ordered_json pre{{"code", framework::CodeName(e.pre_filter_code)}};
  if (!e.pre_filter_plugin.empty()) pre["plugin"] = e.pre_filter_plugin;
  if (!e.pre_filter_message.empty()) pre["message"] = e.pre_filter_message;
  if (e.pre_filter_narrowed) {
    pre["nodeNames"] = e.pre_filter_nodes;
    pre["narrowedBy"] = e.narrowing_plugins;
  }
  j["preFilter"] = pre;
  if (!e.nominated_node.empty()) j["nominatedNode"] = e.nominated_node;
  if (!e.queue.empty()) {
    ordered_json q{
        {"state", e.queue}, {"attempts", e.attempts}, {"queuedSeconds", e.queued_seconds}};
    if (e.queue == "backoff") q["retryInSeconds"] = e.retry_in_seconds;
    if (!e.rejected_by.empty()) q["rejectedBy"] = e.rejected_by;
    j["queue"] = std::move(q);
  }
  ordered_json verdicts = ordered_json::array();
  for (const auto& v : e.verdicts) {
    ordered_json o{{"node", v.node}, {"code", framework::CodeName(v.code)}};
    if (!v.plugin.empty()) o["plugin"] = v.plugin;
    if (!v.message.empty()) o["message"] = v.message;
    verdicts.push_back(std::move(o));
  }
  j["filter"] = std::move(verdicts);
  ordered_json plugins = ordered_json::array();
  for (size_t p = 0; p < e.score_plugins.size(); ++p) {
    plugins.push_back({{"name", e.score_plugins[p]}, {"weight", e.score_weights[p]}});
  }
  j["scorePlugins"] = std::move(plugins);
  ordered_json scored = ordered_json::array();
  for (const auto& s : e.scored) {
    ordered_json o{{"rank", s.rank}, {"node", s.node}, {"total", s.total}};
    ordered_json per = ordered_json::array();
    for (size_t p = 0; p < s.normalized.size(); ++p) {
      per.push_back({{"plugin", e.score_plugins[p]},
                     {"raw", s.raw[p]},
                     {"normalized", s.normalized[p]},
                     {"weighted", s.normalized[p] * e.score_weights[p]}});
    }
    o["plugins"] = std::move(per);
    if (s.extenders != 0) o["extenders"] = s.extenders;
    scored.push_back(std::move(o));
  }
  j["scores"] = std::move(scored);
  j["best"] = e.best;
  j["nodesToScore"] = e.nodes_to_score;
  if (!e.fit_error.empty()) j["unschedulable"] = e.fit_error;
  if (e.preemption_ran || !e.preemption_skipped.empty()) {
    nlohmann::ordered_json candidates = nlohmann::ordered_json::array();
    for (const auto& c : e.preemption_candidates) {
      candidates.push_back(
          {{"node", c.node}, {"victims", c.victims}, {"pdbViolations", c.pdb_violations}});
    }
    j["preemption"] = {{"ran", e.preemption_ran},
                       {"node", e.preemption_node},
                       {"candidates", std::move(candidates)}};
    if (!e.preemption_skipped.empty()) j["preemption"]["skipped"] = e.preemption_skipped;
  }
  if (!e.error.empty()) j["error"] = e.error;
  return j.dump(2) + "\n";
}

}  // namespace stowage::scheduler
