#include "cmd/stowage/app/explain.h"

#include <algorithm>

#include "cmd/stowage/app/process.h"
#include "pkg/common/logging.h"

namespace stowage::app {

const char kExplainUsage[] =
    "Usage:\n"
    "  stowage explain NAMESPACE/POD [-o table|json|html] [flags]\n\n"
    "Runs the profile of a pending pod over every node, as one scheduling cycle would but without\n"
    "sampling or writing anything, and prints each node's verdict, each Score plugin's score and\n"
    "the node the scheduler would pick. POD alone means namespace \"default\". The flags are the\n"
    "scheduler's: --kubeconfig, --config, --feature-gates, --plugin-library and the rest.\n\n";

Status ParsePodRef(std::string_view ref, ExplainRequest& req) {
  const size_t slash = ref.find('/');
  req.ns = slash == std::string_view::npos ? "default" : std::string(ref.substr(0, slash));
  req.name = std::string(slash == std::string_view::npos ? ref : ref.substr(slash + 1));
  if (req.ns.empty() || req.name.empty() || req.name.find('/') != std::string::npos) {
    return InvalidArgumentError("\"" + std::string(ref) + "\" is not NAMESPACE/POD or POD");
  }
  return OkStatus();
}

std::optional<ExplainOutput> ExplainOutputNamed(std::string_view name) {
  if (name == "table") return ExplainOutput::kTable;
  if (name == "json") return ExplainOutput::kJson;
  if (name == "html") return ExplainOutput::kHtml;
  return std::nullopt;
}

std::string RenderExplanation(const scheduler::Explanation& e, ExplainOutput output) {
  switch (output) {
    case ExplainOutput::kJson: return scheduler::RenderExplanationJson(e);
    case ExplainOutput::kHtml: return scheduler::RenderExplanationHtml(e);
    case ExplainOutput::kTable: break;
  }
  return scheduler::RenderExplanationText(e);
}

server::Response ExplainResponse(scheduler::Scheduler& scheduler, std::string_view pod,
                                 ExplainOutput output) {
  server::Response r;
  ExplainRequest req;
  Status s = ParsePodRef(pod, req);
  auto e = s.ok() ? scheduler.Explain(req.ns, req.name) : StatusOr<scheduler::Explanation>(s);
  if (!e.ok()) {
    switch (e.status().code()) {
      case StatusCode::kInvalidArgument: r.status = 400; break;
      case StatusCode::kNotFound: r.status = 404; break;
      case StatusCode::kFailedPrecondition: r.status = 409; break;
      default: r.status = 500;
    }
    r.body = std::string(e.status().message()) + "\n";
    return r;
  }
  if (output == ExplainOutput::kJson) r.content_type = "application/json";
  if (output == ExplainOutput::kHtml) r.content_type = "text/html; charset=utf-8";
  r.body = RenderExplanation(*e, output);
  return r;
}

StatusOr<ExplainRequest> TakeExplainArgs(std::vector<std::string>& args) {
  ExplainRequest r;
  args.erase(args.begin());  // "explain"
  std::vector<std::string> rest;
  bool have_pod = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string output;
    if (a == "-o" || a == "--output") {
      if (i + 1 == args.size()) return InvalidArgumentError("explain: " + a + " needs a value");
      output = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.rfind("-o", 0) == 0 && a.size() > 2 && a[2] != '-') {
      output = a.substr(a[2] == '=' ? 3 : 2);
    } else if (i == 0 && !a.empty() && a[0] != '-') {
      if (Status s = ParsePodRef(a, r); !s.ok()) return s.WithPrefix("explain");
      have_pod = true;
      continue;
    } else {
      rest.push_back(a);
      continue;
    }
    auto named = ExplainOutputNamed(output);
    if (!named) {
      return InvalidArgumentError("explain: unknown output format \"" + output +
                                  "\" (table, json or html)");
    }
    r.output = *named;
  }
  args = std::move(rest);
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                    std::find(args.begin(), args.end(), "-h") != args.end();
  if (!have_pod && !help) {
    return InvalidArgumentError("explain: the pod comes first: stowage explain NAMESPACE/POD");
  }
  return r;
}

int RunExplain(const Options& options, const config::KubeSchedulerConfiguration& cfg,
               const framework::Registry& out_of_tree, const ExplainRequest& request) {
  Process process(options, cfg);
  if (!process.BuildClientConfig() || !process.BuildRegistry(out_of_tree) ||
      !process.EnterSandbox()) {
    return 1;
  }
  process.WatchSignals();
  process.RegisterMetrics();
  if (!process.NewClients() || !process.NewScheduler()) return 1;
  process.SyncInformers();
  process.Exit(process.Explain(request));
}

}  // namespace stowage::app
