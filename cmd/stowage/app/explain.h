// `stowage explain NAMESPACE/POD [-o table|json|html] [scheduler flags]`: what a scheduling cycle
// would do with one pending pod, over every node, with the scheduler's own flags and
// configuration (docs/explain.md). The process lists the cluster as the scheduler does, runs the
// pod's profile once with nothing reserved or written, prints the answer and exits.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/stowage/app/options.h"
#include "pkg/config/types.h"
#include "pkg/scheduler/scheduler.h"
#include "pkg/server/http.h"
#include "stowage/common/status.h"
#include "stowage/framework/registry.h"

namespace stowage::app {

enum class ExplainOutput { kTable, kJson, kHtml };

struct ExplainRequest {
  std::string ns = "default";
  std::string name;
  ExplainOutput output = ExplainOutput::kTable;
};

// What `stowage explain --help` prints before the scheduler's flags.
extern const char kExplainUsage[];

// Takes the subcommand's own arguments out of args (which starts with "explain"): the pod,
// which must come first, and -o/--output; the rest are the scheduler's flags. InvalidArgument
// names what is wrong.
StatusOr<ExplainRequest> TakeExplainArgs(std::vector<std::string>& args);

// "NAMESPACE/POD" or "POD" (namespace "default") into req's ns and name; InvalidArgument else.
Status ParsePodRef(std::string_view ref, ExplainRequest& req);

// The answer of /debug/explain for pod on a running scheduler: 200 with the table or JSON; 400
// for a malformed pod, 404 for an unknown one, 409 for a bound one or one no profile serves.
server::Response ExplainResponse(scheduler::Scheduler& scheduler, std::string_view pod,
                                 ExplainOutput output);
// "table", "json" or "html"; nullopt for anything else.
std::optional<ExplainOutput> ExplainOutputNamed(std::string_view name);
// The answer in that form.
std::string RenderExplanation(const scheduler::Explanation& e, ExplainOutput output);

// Lists the cluster, explains the pod and returns the exit code (0 once the answer is printed).
int RunExplain(const Options& options, const config::KubeSchedulerConfiguration& cfg,
               const framework::Registry& out_of_tree, const ExplainRequest& request);

}  // namespace stowage::app
