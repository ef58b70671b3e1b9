// Writing a KubeSchedulerConfiguration back out in the kubescheduler.config.k8s.io/v1 schema,
// for --write-config-to and /configz.
//
// The output follows upstream's encoder: apiVersion and kind first (upstream sorts them in with
// the rest), then every field in alphabetical order; fields that v1 marks omitempty are left out
// when empty, the others are always written (`leaderElect: null`, `httpTimeout: 0s`, every
// extension point of `plugins`, `{}` when empty); typed plugin args carry their own apiVersion
// and kind; out-of-tree args are written as given. Durations use Go's format ("10m0s").
// ParseConfig(EncodeYaml(cfg)) == cfg for any cfg. An unset plugin weight is left out, as the v1
// encoder leaves out a nil pointer; --write-config-to writes WrittenConfig (written.h), in which
// every weight is set, as upstream's internal types have it.
#pragma once

#include <string>

#include "pkg/config/types.h"

namespace stowage::config {

// Block-style YAML.
std::string EncodeYaml(const KubeSchedulerConfiguration& cfg);
// Compact JSON (for /configz).
std::string EncodeJson(const KubeSchedulerConfiguration& cfg);
// A plugin's args as JSON: typed args with apiVersion and kind, RawArgs as held, "null" for none.
// This is also the form in which plugin factories can be handed their args.
std::string EncodeArgsJson(const PluginArgs& args);

}  // namespace stowage::config
