// RenderExplanationHtml (explain.h): one self-contained page, no external resource, whose tables
// sort when a header is clicked.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/common/go_quote.h"
#include "pkg/scheduler/explain.h"

namespace stowage::scheduler {

namespace {

// Numbers sort as numbers: a cell marked data-n.
std::string Cell(std::string_view text, bool number = false) {
  return std::string(number ? "<td data-n>" : "<td>") + HtmlEscape(text) + "</td>";
}

constexpr char kHead[] = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>)";

constexpr char kStyle[] = R"(</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left}
td[data-n]{text-align:right;font-variant-numeric:tabular-nums}
th{background:#eee;cursor:pointer;user-select:none}
.pick{font-weight:bold}
</style></head><body>
)";

// Clicking a header sorts its table by that column, numbers numerically; again reverses.
constexpr char kScript[] = R"(<script>
document.querySelectorAll('table.sortable th').forEach(function(th){
  th.addEventListener('click',function(){
    var table=th.closest('table'),body=table.tBodies[0],i=th.cellIndex;
    var asc=th.dataset.dir!=='asc';th.dataset.dir=asc?'asc':'desc';
    var rows=Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){
      var x=a.cells[i],y=b.cells[i],r;
      if(x.hasAttribute('data-n'))r=Number(x.textContent)-Number(y.textContent);
      else r=x.textContent.localeCompare(y.textContent);
      return asc?r:-r;});
    rows.forEach(function(r){body.appendChild(r);});
  });
});
</script>
)";

}  // namespace

std::string RenderExplanationHtml(const Explanation& e) {
  std::string out = kHead;
  out += "stowage explain " + HtmlEscape(e.pod) + kStyle;
  out += "<h1>Pod " + HtmlEscape(e.pod) + "</h1>\n<p>Profile " + HtmlEscape(e.profile) + ", " +
         std::to_string(e.num_nodes) + " nodes.</p>\n";
  if (!e.queue.empty()) out += "<p>Queue: " + HtmlEscape(QueueLine(e)) + "</p>\n";
  if (!e.pre_enqueue_plugin.empty()) {
    out += "<p>PreEnqueue: held out of the queue by " + HtmlEscape(e.pre_enqueue_plugin) + ": " +
           HtmlEscape(e.pre_enqueue_message) + "</p>\n";
  }
  if (e.pre_filter_code != framework::Code::kSuccess) {
    out += "<p>PreFilter: " + HtmlEscape(framework::CodeName(e.pre_filter_code)) + " by " +
           HtmlEscape(e.pre_filter_plugin) + ": " + HtmlEscape(e.pre_filter_message) + "</p>\n";
  }
  if (!e.error.empty()) out += "<p>Error: " + HtmlEscape(e.error) + "</p>\n";
  if (!e.fit_error.empty()) out += "<p>Unschedulable: " + HtmlEscape(e.fit_error) + "</p>\n";
  if (!e.preemption_skipped.empty()) {
    out += "<p>Preemption: " + HtmlEscape(e.preemption_skipped) + "</p>\n";
  } else if (e.preemption_ran) {
    out += "<p>Preemption (dry run): " +
           HtmlEscape(e.preemption_node.empty() ? "no candidate node"
                                                : "would nominate " + e.preemption_node) +
           "</p>\n";
    for (const auto& c : e.preemption_candidates) {
      std::string v;
      for (const auto& p : c.victims) v += (v.empty() ? "" : ", ") + p;
      out += "<p class=\"candidate\">" + HtmlEscape(c.node) + ": " + HtmlEscape(v) + "</p>\n";
    }
  }
  if (!e.best.empty()) {
    std::string best;
    for (const auto& b : e.best) best += (best.empty() ? "" : ", ") + b;
    out += "<p class=\"pick\">Best: " + HtmlEscape(best) + "</p>\n";
  }
  // Rejections grouped by verdict, as the table output groups them.
  std::map<std::tuple<std::string, framework::Code, std::string>, std::vector<std::string>> groups;
  for (const auto& v : e.verdicts) {
    if (v.code != framework::Code::kSuccess)
      groups[{v.plugin, v.code, v.message}].push_back(v.node);
  }
  if (!groups.empty()) {
    out +=
        "<h2>Rejected nodes</h2>\n<table class=\"sortable\" id=\"rejected\"><thead><tr>"
        "<th>Nodes</th><th>Rejected by</th><th>Code</th><th>Reason</th><th>Node names</th>"
        "</tr></thead><tbody>\n";
    for (const auto& [k, nodes] : groups) {
      const auto& [plugin, code, message] = k;
      std::string names;
      for (const auto& n : nodes) names += (names.empty() ? "" : " ") + n;
      out += "<tr>" + Cell(std::to_string(nodes.size()), true) +
             Cell(plugin.empty() ? "-" : plugin) + Cell(framework::CodeName(code)) + Cell(message) +
             Cell(names) + "</tr>\n";
    }
    out += "</tbody></table>\n";
  }
  if (!e.scored.empty()) {
    out +=
        "<h2>Feasible nodes</h2>\n<p>Each plugin's column: normalized score &times; weight.</p>\n"
        "<table class=\"sortable\" id=\"scores\"><thead><tr><th>Rank</th><th>Node</th>"
        "<th>Total</th>";
    for (size_t p = 0; p < e.score_plugins.size(); ++p) {
      out += "<th>" + HtmlEscape(e.score_plugins[p]) + " &times;" +
             std::to_string(e.score_weights[p]) + "</th>";
    }
    out += "<th>Extenders</th></tr></thead><tbody>\n";
    for (const auto& s : e.scored) {
      out += "<tr>" + Cell(std::to_string(s.rank), true) + Cell(s.node) +
             Cell(std::to_string(s.total), true);
      for (size_t p = 0; p < s.normalized.size(); ++p) {
        out += Cell(std::to_string(s.normalized[p] * e.score_weights[p]), true);
      }
      out += Cell(std::to_string(s.extenders), true) + "</tr>\n";
    }
    out += "</tbody></table>\n";
  }
  out += kScript;
  out += "</body></html>\n";
  return out;
}

}  // namespace stowage::scheduler
