// Fuzzes the --config path as kube-scheduler's start-up runs it (pkg/config): strict decoding of a
// KubeSchedulerConfiguration in YAML or JSON, defaulting, then validation. Encoding is checked as
// encode.h promises: writing a configuration out (YAML for --write-config-to, JSON for /configz)
// and reading it back gives the same configuration, before and after defaulting.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "pkg/common/assert.h"
#include "pkg/config/defaults.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"

namespace {

using stowage::config::KubeSchedulerConfiguration;

void CheckRoundTrip(const KubeSchedulerConfiguration& cfg) {
  auto from_yaml = stowage::config::ParseConfig(stowage::config::EncodeYaml(cfg));
  RELEASE_ASSERT(from_yaml.ok(), "the YAML encoding of a configuration does not load");
  RELEASE_ASSERT(*from_yaml == cfg, "the YAML encoding loads as a different configuration");
  auto from_json = stowage::config::ParseConfig(stowage::config::EncodeJson(cfg));
  RELEASE_ASSERT(from_json.ok(), "the JSON encoding of a configuration does not load");
  RELEASE_ASSERT(*from_json == cfg, "the JSON encoding loads as a different configuration");
}

// Known bug, fixed on the branch that owns pkg/config/validation.cc: the renewDeadline check
// multiplies retryPeriod by 1.2 in floating point and converts back to int64, which overflows
// (undefined behaviour) from retryPeriod > INT64_MAX / 1.2 ns (about 2135039h) up. Until that fix
// is merged such inputs skip validation so the fuzzer can look for other faults.
bool RetryPeriodOverflows(const KubeSchedulerConfiguration& cfg) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(cfg.leader_election.retry_period);
  return static_cast<double>(ns.count()) * 1.2 >=
         static_cast<double>(std::numeric_limits<int64_t>::max());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cfg = stowage::config::ParseConfig(text, "fuzz");
  if (!cfg.ok()) return 0;
  CheckRoundTrip(*cfg);
  stowage::config::SetDefaults(*cfg);
  CheckRoundTrip(*cfg);
  if (RetryPeriodOverflows(*cfg)) return 0;
  (void)stowage::config::Validate(*cfg);
  return 0;
}
