// Fuzzes the --config path as kube-scheduler's start-up runs it (pkg/config): strict decoding of a
// KubeSchedulerConfiguration in YAML or JSON, defaulting, then validation. Encoding is checked as
// encode.h promises: writing a configuration out (YAML for --write-config-to, JSON for /configz)
// and reading it back gives the same configuration, before and after defaulting.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/config/defaults.h"
#include "pkg/config/encode.h"
#include "pkg/config/load.h"
#include "pkg/config/validation.h"
#include "stowage/common/assert.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cfg = stowage::config::ParseConfig(text, "fuzz");
  if (!cfg.ok()) return 0;
  CheckRoundTrip(*cfg);
  stowage::config::SetDefaults(*cfg);
  CheckRoundTrip(*cfg);
  (void)stowage::config::Validate(*cfg);
  return 0;
}
