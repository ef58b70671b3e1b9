// stowage: a Kubernetes scheduler, a drop-in for kube-scheduler 1.36. Parses kube-scheduler's
// flags, builds the effective configuration and runs the scheduler (cf. upstream's
// cmd/kube-scheduler/scheduler.go and app/server.go).
#include <unistd.h>

#include <cstdio>

#include "cmd/stowage/app/options.h"
#include "cmd/stowage/app/server.h"
#include "pkg/common/logging.h"

int main(int argc, char** argv) {
  using namespace stowage;
  auto options = app::ParseFlags(argc, argv);
  if (!options.ok()) {
    std::fputs(app::ParseErrorText(options.status(), app::TerminalColumns(STDOUT_FILENO)).c_str(),
               stderr);
    return 1;
  }
  if (options->help) {
    std::fputs(app::Help(app::TerminalColumns(STDOUT_FILENO)).c_str(), stdout);
    return 0;
  }
  if (options->version != app::VersionFlag::kFalse) {
    std::fputs(app::VersionText(*options).c_str(), stdout);
    return 0;
  }
  if (Status s = logging::Init(app::LoggingConfig(options->logs)); !s.ok()) {
    std::fprintf(stderr, "Error: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  for (const auto& w : options->warnings) LOG_WARN("{}", w);
  auto cfg = app::BuildConfig(*options);
  if (!cfg.ok()) {
    std::fprintf(stderr, "Error: %s\n", std::string(cfg.status().message()).c_str());
    return 1;
  }
  if (!options->write_config_to.empty()) {
    Status s = app::WriteConfigFile(options->write_config_to, *cfg);
    if (!s.ok()) {
      std::fprintf(stderr, "Error: %s\n", std::string(s.message()).c_str());
      return 1;
    }
    LOG_INFO("wrote configuration to {}", options->write_config_to);
    return 0;
  }
  return app::RunScheduler(*options, *cfg);
}
