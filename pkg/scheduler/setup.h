// The one way a scheduler is built from its configuration (upstream scheduler.New): profiles
// from the configuration (multiPoint expansion, weights, args; plugins stowage lacks dropped
// with a warning, which is logged), one framework per profile over the scheduler's Handle, the
// scheduling queue and the informer handlers. The binary, the integration tests' running
// scheduler and, for its profile part (NewFrameworks), bench_cycle all go through here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/config/types.h"
#include "pkg/framework/runtime/runtime.h"
#include "pkg/informer/informer_factory.h"
#include "pkg/scheduler/scheduler.h"
#include "stowage/common/status.h"
#include "stowage/framework/handle.h"
#include "stowage/framework/registry.h"

namespace stowage::scheduler {

struct Setup {
  client::RestClient& client;
  informer::InformerFactory& informers;  // not started yet, so the first lists reach the handlers
  const config::KubeSchedulerConfiguration& cfg;  // defaulted and validated
  const framework::Registry& registry;
  // In-tree plugins stowage does not implement yet (plugins::NotYetImplemented()).
  std::vector<std::string_view> not_yet_implemented;
  // The feature gates every plugin factory receives (--feature-gates).
  config::Features features;
  // The configuration's parallelism, percentageOfNodesToScore and pod backoffs replace these.
  Options options;
  // --extender-max-response-bytes: the most bytes of an extender's answer read (http_extender.h).
  size_t extender_max_response_bytes = config::kDefaultExtenderMaxResponseBytes;
};

struct NewScheduler {
  std::unique_ptr<Scheduler> scheduler;
  std::vector<std::string> warnings;  // already logged
};

StatusOr<NewScheduler> New(Setup setup);

struct Frameworks {
  std::vector<std::unique_ptr<framework::Framework>> frameworks;  // in the profiles' order
  std::vector<std::string> warnings;                              // already logged
};

// The frameworks of cfg's profiles, their plugins built with handle (which must outlive them).
StatusOr<Frameworks> NewFrameworks(const config::KubeSchedulerConfiguration& cfg,
                                   const framework::Registry& registry,
                                   const std::vector<std::string_view>& not_yet_implemented,
                                   framework::Handle& handle,
                                   const config::Features& features = {});

// One framework per spec, in order.
StatusOr<std::vector<std::unique_ptr<framework::Framework>>> FrameworksFromSpecs(
    const framework::Registry& registry, const std::vector<framework::ProfileSpec>& specs,
    framework::Handle& handle);

}  // namespace stowage::scheduler
