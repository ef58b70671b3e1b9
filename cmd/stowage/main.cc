// stowage: a Kubernetes scheduler, a drop-in for kube-scheduler 1.37. Parses kube-scheduler's
// flags, builds the effective configuration and runs the scheduler (cf. upstream's
// cmd/kube-scheduler/scheduler.go and app/server.go).
#include <unistd.h>

#include <cstdio>

#include "cmd/stowage/app/options.h"
#include "cmd/stowage/app/server.h"
#include "pkg/common/logging.h"

int main(int argc, char** argv) {
  using namespace stowage;
  auto options = app::ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!options.ok()) {
    std::fputs(app::ParseErrorText(options.status(), app::TerminalColumns(STDOUT_FILENO)).c_str(),
               stderr);
    return 1;
  }
  if (options->help) {
    std::fputs(app::Help(app::TerminalColumns(STDOUT_FILENO)).c_str(), stdout);
    return 0;
  }
  // As component-base's cli.Run: once logging is up, errors are logged rather than printed.
  logging::Init(0);
  auto failed = [](const Status& s) {
    LOG_ERROR_ERR(s, "command failed");
    return 1;
  };
  if (Status s = app::ApplyFeatureGates(*options); !s.ok()) return failed(s);
  for (const auto& w : options->warnings) LOG_INFO("{}", w);
  if (options->version != app::VersionFlag::kFalse) {
    std::fputs(app::VersionText(*options).c_str(), stdout);
    return 0;
  }
  if (Status s = logging::Init(app::LoggingConfig(options->logs)); !s.ok()) return failed(s);
  auto cfg = app::BuildConfig(*options);
  if (!cfg.ok()) return failed(cfg.status());
  if (!options->write_config_to.empty()) {
    if (Status s = app::WriteConfigFile(options->write_config_to, *cfg); !s.ok()) {
      return failed(s);
    }
    LOG_INFO("wrote configuration to {}", options->write_config_to);
    return 0;
  }
  return app::RunScheduler(*options, *cfg);
}
