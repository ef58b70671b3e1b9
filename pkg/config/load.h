// Loading a KubeSchedulerConfiguration file (--config), YAML or JSON. As upstream, a document
// whose first non-blank character is '{' is read as JSON, anything else as YAML (1.1 scalar
// rules: `yes`, `on` and `y` are booleans, `0x10` is a number).
//
// Decoding is strict, as upstream's (scheme.Codecs with serializer.EnableStrict): apiVersion must
// be kubescheduler.config.k8s.io/v1 and kind KubeSchedulerConfiguration; an unknown field, a
// field given twice or a value of the wrong type is an error that names the field's path, e.g.
// `profiles[0].plugins.score.enabled[1].wieght: unknown field`. Every such error in the file is
// reported at once. Args of in-tree plugins are decoded into their typed structs just as
// strictly; args of any other plugin are kept as JSON text (RawArgs).
//
// Untrusted input is bounded: files over kMaxConfigBytes, nesting deeper than the YAML parser's
// limit, and alias-expanded documents over a node budget are rejected with an error. Nothing
// here throws.
//
// Unlike upstream's decoder, loading does not apply defaults: call SetDefaults (defaults.h) and
// then Validate (validation.h) on the result, which is what kube-scheduler's --config does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pkg/config/types.h"
#include "stowage/common/status.h"

namespace stowage::config {

inline constexpr size_t kMaxConfigBytes = 4u << 20;

// Reads and parses the file at path. Errors start with the path.
StatusOr<KubeSchedulerConfiguration> LoadConfigFile(const std::string& path);

// Parses a configuration document; source_name prefixes error messages.
StatusOr<KubeSchedulerConfiguration> ParseConfig(std::string_view text,
                                                 std::string_view source_name = "config");

}  // namespace stowage::config
