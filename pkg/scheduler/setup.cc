#include "pkg/scheduler/setup.h"

#include "pkg/common/logging.h"
#include "pkg/extender/http_extender.h"
#include "pkg/scheduler/profile.h"

namespace stowage::scheduler {

StatusOr<std::vector<std::unique_ptr<framework::Framework>>> FrameworksFromSpecs(
    const framework::Registry& registry, const std::vector<framework::ProfileSpec>& specs,
    framework::Handle& handle) {
  std::vector<std::unique_ptr<framework::Framework>> out;
  for (const auto& spec : specs) {
    auto fw = framework::Framework::New(registry, spec, handle);
    if (!fw.ok()) return fw.status();
    out.push_back(std::move(*fw));
  }
  return out;
}

StatusOr<Frameworks> NewFrameworks(const config::KubeSchedulerConfiguration& cfg,
                                   const framework::Registry& registry,
                                   const std::vector<std::string_view>& not_yet_implemented,
                                   framework::Handle& handle, const config::Features& features) {
  auto built = BuildProfiles(cfg, registry, handle, not_yet_implemented, features);
  if (!built.ok()) return built.status();
  for (const auto& w : built->warnings) LOG_WARN("{}", w);
  auto frameworks = FrameworksFromSpecs(registry, built->profiles, handle);
  if (!frameworks.ok()) return frameworks.status();
  return Frameworks{std::move(*frameworks), std::move(built->warnings)};
}

StatusOr<NewScheduler> New(Setup setup) {
  const config::KubeSchedulerConfiguration& cfg = setup.cfg;
  Options options = std::move(setup.options);
  if (cfg.parallelism) options.parallelism = *cfg.parallelism;
  options.percentage_of_nodes_to_score = cfg.percentage_of_nodes_to_score;
  if (cfg.pod_initial_backoff_seconds) {
    options.queue.initial_backoff = std::chrono::seconds(*cfg.pod_initial_backoff_seconds);
  }
  if (cfg.pod_max_backoff_seconds) {
    options.queue.max_backoff = std::chrono::seconds(*cfg.pod_max_backoff_seconds);
  }
  for (const config::Extender& e : cfg.extenders) {
    auto ext = extender::New(e, setup.extender_max_response_bytes);
    if (!ext.ok()) return ext.status();
    options.extenders.push_back(std::move(*ext));
  }
  auto sched = std::make_unique<Scheduler>(setup.client, setup.informers, std::move(options));
  auto frameworks = NewFrameworks(cfg, setup.registry, setup.not_yet_implemented, sched->handle(),
                                  setup.features);
  if (!frameworks.ok()) return frameworks.status();
  if (Status s = sched->Init(std::move(frameworks->frameworks)); !s.ok()) return s;
  return NewScheduler{std::move(sched), std::move(frameworks->warnings)};
}

}  // namespace stowage::scheduler
