#include "pkg/common/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>

namespace stowage::logging {
namespace {
std::atomic<int> g_verbosity{0};
}

int Verbosity() { return g_verbosity.load(std::memory_order_relaxed); }

void Init(int verbosity, Format format) {
  g_verbosity.store(verbosity, std::memory_order_relaxed);
  spdlog::drop("stowage");
  auto logger = spdlog::stderr_logger_mt("stowage");
  (void)format;  // JSON output arrives with the operations work (issue 4); text until then.
  logger->set_pattern("%L%m%d %H:%M:%S.%f %7t %s:%#] %v");
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace stowage::logging
