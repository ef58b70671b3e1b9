// The feature gates of kube-scheduler 1.37 and the --feature-gates, --emulated-version and
// --min-compatibility-version semantics of component-base's ComponentGlobalsRegistry and
// featuregate packages.
//
// The table (feature_gates_generated.inc) holds every gate of the binary's "kube" registry (not
// only the scheduler's: upstream shares one registry with the other components and accepts all
// of its names) with its versioned specs, so a gate's stage, default and lock are resolved at
// the emulated and min compatibility versions as upstream resolves them. It is generated from
// the pinned Kubernetes module by scripts/generate/feature-gates; never edit it by hand.
#include <algorithm>
#include <span>
#include <string>

#include "cmd/stowage/app/options.h"
#include "pkg/common/error_list.h"
#include "pkg/common/macros.h"

namespace stowage::app {
namespace {

enum class GateStage : uint8_t { kPreAlpha, kAlpha, kBeta, kGA, kDeprecated };

// One featuregate.FeatureSpec of a gate; min_compatibility {0, 0} means none.
struct GateSpecRow {
  std::string_view name;
  MinorVersion version;
  MinorVersion min_compatibility;
  GateStage stage;
  bool default_value;
  bool locked;
};

struct GateDependencyRow {
  std::string_view feature;
  std::string_view requires_;
};

#include "cmd/stowage/app/feature_gates_generated.inc"

static_assert(kGeneratedRelease == kKubeSchedulerVersion,
              "feature_gates_generated.inc is from another release: run "
              "scripts/generate/feature-gates");

std::string_view StageName(GateStage stage) {
  switch (stage) {
    case GateStage::kPreAlpha: return "PRE-ALPHA";
    case GateStage::kAlpha: return "ALPHA";
    case GateStage::kBeta: return "BETA";
    case GateStage::kGA: return "GA";
    case GateStage::kDeprecated: return "DEPRECATED";
  }
  return "";
}

// A gate's specs, oldest first; empty when the name is unknown.
std::span<const GateSpecRow> VersionedSpecs(std::string_view name) {
  const std::span<const GateSpecRow> rows(kGateSpecRows);
  auto first =
      std::lower_bound(rows.begin(), rows.end(), name,
                       [](const GateSpecRow& r, std::string_view n) { return r.name < n; });
  auto last = std::upper_bound(first, rows.end(), name,
                               [](std::string_view n, const GateSpecRow& r) { return n < r.name; });
  return {first, last};
}

// featuregate's featureSpecAtEmulationAndMinCompatVersion: the newest spec not newer than the
// emulation version whose min compatibility version is met; a gate with none is pre-alpha.
const GateSpecRow& SpecAt(std::span<const GateSpecRow> specs, MinorVersion emulation,
                          MinorVersion min_compatibility) {
  for (auto it = specs.rbegin(); it != specs.rend(); ++it) {
    if (it->version > emulation) continue;
    if (min_compatibility < it->min_compatibility) continue;
    return *it;
  }
  static constexpr GateSpecRow kPreAlphaSpec{"",    {0, 0}, {0, 0}, GateStage::kPreAlpha,
                                             false, false};
  return kPreAlphaSpec;
}

// The distinct gate names, sorted (rows are sorted by name).
std::vector<std::string_view> GateNames() {
  std::vector<std::string_view> names;
  for (const GateSpecRow& row : kGateSpecRows) {
    if (names.empty() || names.back() != row.name) names.push_back(row.name);
  }
  return names;
}

// featuregate GetAll: every gate that exists at the versions.
std::vector<FeatureGateSpec> GatesAt(MinorVersion emulation, MinorVersion min_compatibility) {
  std::vector<FeatureGateSpec> gates;
  for (std::string_view name : GateNames()) {
    const GateSpecRow& spec = SpecAt(VersionedSpecs(name), emulation, min_compatibility);
    if (spec.stage == GateStage::kPreAlpha) continue;
    gates.push_back({name, StageName(spec.stage), spec.default_value, spec.locked});
  }
  return gates;
}

// upstream's utilerrors aggregate text.
Status Aggregate(const std::vector<std::string>& errors) {
  return FailedPreconditionError(JoinAggregate(errors));
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// apimachinery's version.Parse (a "generic" version: "v1.37", "1.37.0"), then the registry's
// rule that no patch is allowed. component names the flag entry in the patch error.
StatusOr<MinorVersion> ParseMinorVersion(std::string_view text, std::string_view component) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  std::string current;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      current += c;
    } else if (c == '.' && !current.empty() && i + 1 < s.size() && s[i + 1] >= '0' &&
               s[i + 1] <= '9') {
      parts.push_back(current);
      current.clear();
    } else {
      break;
    }
  }
  if (current.empty()) {
    return FailedPreconditionError("could not parse \"" + std::string(text) + "\" as version");
  }
  parts.push_back(current);
  if (parts.size() < 2) {
    return FailedPreconditionError("illegal version string \"" + std::string(text) + "\"");
  }
  if (parts[0].size() > 1 && parts[0][0] == '0') {
    return FailedPreconditionError("illegal zero-prefixed version component \"" + parts[0] +
                                   "\" in \"" + std::string(text) + "\"");
  }
  for (size_t k = 0; k < parts.size() && k < 3; ++k) {
    if (parts[k].size() > 9) {
      return FailedPreconditionError("illegal non-numeric version component \"" + parts[k] +
                                     "\" in \"" + std::string(text) + "\"");
    }
  }
  MinorVersion v{std::stoi(parts[0]), std::stoi(parts[1])};
  if (parts.size() > 2 && std::stoll(parts[2]) != 0) {
    return FailedPreconditionError("patch version not allowed, got: " + std::string(component) +
                                   "=" + v.String() + "." + std::to_string(std::stoll(parts[2])));
  }
  return v;
}

// toVersionMap, then Set's check that every component is registered: "[component=]major.minor"
// items; the component defaults to "kube", the only one registered.
StatusOr<std::optional<MinorVersion>> ParseVersionFlag(const std::vector<std::string>& items) {
  std::map<std::string, MinorVersion> versions;
  for (const std::string& item : items) {
    std::string component = "kube";
    std::string value = item;
    if (const size_t eq = item.find('='); eq != std::string::npos) {
      component = Trim(std::string_view(item).substr(0, eq));
      value = Trim(std::string_view(item).substr(eq + 1));
    }
    ASSIGN_OR_RETURN(MinorVersion v, ParseMinorVersion(value, component));
    if (auto it = versions.find(component); it != versions.end()) {
      return FailedPreconditionError("duplicate version flag, " + component + "=" +
                                     it->second.String() + " and " + component + "=" + v.String());
    }
    versions[component] = v;
  }
  for (const auto& [component, v] : versions) {
    if (component != "kube") {
      return FailedPreconditionError("component not registered: " + component);
    }
  }
  if (auto it = versions.find("kube"); it != versions.end()) {
    return std::optional<MinorVersion>(it->second);
  }
  return std::optional<MinorVersion>();
}

// featureGate.Set's parsing: "Name=bool" items; the last value of a name wins.
StatusOr<std::map<std::string, bool>> ParseGateValues(const std::vector<std::string>& items) {
  std::map<std::string, bool> requested;
  for (const std::string& joined : items) {
    size_t start = 0;
    while (start <= joined.size()) {
      const size_t comma = std::min(joined.find(',', start), joined.size());
      const std::string_view item = std::string_view(joined).substr(start, comma - start);
      start = comma + 1;
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      const std::string key = Trim(item.substr(0, eq));
      if (eq == std::string::npos) return FailedPreconditionError("missing bool value for " + key);
      const std::string value = Trim(item.substr(eq + 1));
      auto b = ParseGoBool(value);
      if (!b.ok()) {
        return FailedPreconditionError("invalid value of " + key + "=" + value +
                                       ", err: " + std::string(b.status().message()));
      }
      requested[key] = *b;
    }
  }
  return requested;
}

std::string_view BoolText(bool b) { return b ? "true" : "false"; }

// featureGate.unsafeSetFromMap, in name order (upstream walks a Go map, so the order of several
// errors varies there): the explicit gates, or the errors, plus the warnings upstream logs for
// GA and deprecated gates.
Status SetFromMap(const std::map<std::string, bool>& requested, MinorVersion emulation,
                  MinorVersion min_compatibility, std::map<std::string, bool, std::less<>>& enabled,
                  std::vector<std::string>& warnings) {
  // Upstream stops at the first unknown name, with the errors of the names its map walk met
  // before; which those are is random, so an unknown name is reported alone.
  for (const auto& [name, value] : requested) {
    if (VersionedSpecs(name).empty()) {
      return FailedPreconditionError("unrecognized feature gate: " + name);
    }
  }
  std::vector<std::string> errors;
  for (const auto& [name, value] : requested) {
    const GateSpecRow& spec = SpecAt(VersionedSpecs(name), emulation, min_compatibility);
    if (spec.locked && spec.default_value != value) {
      errors.push_back("cannot set feature gate " + name + " to " + std::string(BoolText(value)) +
                       ", feature is locked to " + std::string(BoolText(spec.default_value)));
      continue;
    }
    if (name == "AllAlpha" || name == "AllBeta") {
      const GateStage stage = name == "AllAlpha" ? GateStage::kAlpha : GateStage::kBeta;
      for (std::string_view other : GateNames()) {
        if (other == "AllAlpha" || other == "AllBeta") continue;
        if (SpecAt(VersionedSpecs(other), emulation, min_compatibility).stage != stage) continue;
        // An explicit value wins whichever comes first.
        if (requested.count(std::string(other)) == 0) enabled[std::string(other)] = value;
      }
      enabled[name] = value;
      continue;
    }
    if (spec.stage == GateStage::kPreAlpha) {
      errors.push_back("cannot set feature gate " + name + " to " + std::string(BoolText(value)) +
                       ", feature is PreAlpha at emulated version " + emulation.String() +
                       ", min compatibility version " + min_compatibility.String());
      continue;
    }
    enabled[name] = value;
    if (spec.stage == GateStage::kDeprecated || spec.stage == GateStage::kGA) {
      warnings.push_back("\"Warning: setting " +
                         std::string(spec.stage == GateStage::kGA ? "GA" : "deprecated") +
                         " feature gate. It will be removed in a future release.\" featureGate=\"" +
                         name + "\" value=" + std::string(BoolText(value)));
    }
  }
  if (!errors.empty()) return Aggregate(errors);
  auto is_on = [&](std::string_view name) {
    if (auto e = enabled.find(name); e != enabled.end()) return e->second;
    return SpecAt(VersionedSpecs(name), emulation, min_compatibility).default_value;
  };
  const std::span<const GateDependencyRow> deps(kGateDependencyRows);
  for (size_t i = 0; i < deps.size();) {
    const std::string_view feature = deps[i].feature;
    std::vector<std::string> off;
    for (; i < deps.size() && deps[i].feature == feature; ++i) {
      if (!is_on(deps[i].requires_)) off.emplace_back(deps[i].requires_);
    }
    if (is_on(feature) && !off.empty()) {
      errors.push_back(std::string(feature) +
                       " is enabled, but depends on features that are disabled: [" +
                       Join(off, " ") + "]");
    }
  }
  return errors.empty() ? OkStatus() : Aggregate(errors);
}

// FeatureSpec.HelpString: GA, deprecated and pre-alpha gates are not listed.
std::string HelpString(std::string_view name, const GateSpecRow& spec, bool with_min_compat) {
  if (spec.stage != GateStage::kAlpha && spec.stage != GateStage::kBeta) return "";
  std::string s = std::string(name) + "=true|false (" + std::string(StageName(spec.stage)) +
                  " - default=" + std::string(BoolText(spec.default_value)) + ")";
  if (with_min_compat && spec.min_compatibility != MinorVersion{}) {
    s += " if --min-compatibility-version>=" + spec.min_compatibility.String();
  }
  return s;
}

}  // namespace

MinorVersion BinaryMinorVersion() { return kBinaryVersion; }
MinorVersion DefaultMinCompatibilityVersion() {
  // NewEffectiveVersion: one minor below the binary.
  return {kBinaryVersion.major, kBinaryVersion.minor - 1};
}

const std::vector<FeatureGateSpec>& KnownFeatureGates() {
  static const auto* gates = new std::vector<FeatureGateSpec>(
      GatesAt(BinaryMinorVersion(), DefaultMinCompatibilityVersion()));
  return *gates;
}

const FeatureGateSpec* FindFeatureGate(std::string_view name) {
  const auto& gates = KnownFeatureGates();
  auto it =
      std::lower_bound(gates.begin(), gates.end(), name,
                       [](const FeatureGateSpec& g, std::string_view n) { return g.name < n; });
  return (it != gates.end() && it->name == name) ? &*it : nullptr;
}

bool FeatureGateOptions::Enabled(std::string_view gate) const {
  if (auto it = explicit_gates.find(gate); it != explicit_gates.end()) return it->second;
  return SpecAt(VersionedSpecs(gate), emulation, min_compatibility).default_value;
}

std::vector<FeatureGateSpec> FeatureGateOptions::Gates() const {
  return GatesAt(emulation, min_compatibility);
}

std::vector<std::string> ValidateVersions(const FeatureGateOptions& fg) {
  std::vector<std::string> errors;
  if (fg.emulation > kBinaryVersion || fg.emulation < kEmulationVersionFloor) {
    errors.push_back("emulation version " + fg.emulation.String() + " is not between [" +
                     kEmulationVersionFloor.String() + ", " + kBinaryVersion.String() + ".0]");
  }
  if (fg.min_compatibility > fg.emulation || fg.min_compatibility < kMinCompatibilityVersionFloor) {
    errors.push_back("minCompatibilityVersion version " + fg.min_compatibility.String() +
                     " is not between [" + kMinCompatibilityVersionFloor.String() + ", " +
                     fg.emulation.String() + "]");
  }
  return errors;
}

namespace internal {

std::string FeatureGatesUsage() {
  // featureGate.KnownFeatures at the default versions, each prefixed with the component.
  const MinorVersion emulation = BinaryMinorVersion();
  const MinorVersion min_compatibility = DefaultMinCompatibilityVersion();
  std::vector<std::string> known;
  for (std::string_view name : GateNames()) {
    const auto specs = VersionedSpecs(name);
    if (name == "AllAlpha" || name == "AllBeta") {
      known.push_back("kube:" + HelpString(name, specs.front(), false));
      continue;
    }
    const GateSpecRow& spec = SpecAt(specs, emulation, min_compatibility);
    const GateSpecRow& at_emulation = SpecAt(specs, emulation, emulation);
    const std::string text = HelpString(name, spec, false);
    if (&spec == &at_emulation) {
      if (!text.empty()) known.push_back("kube:" + text);
      continue;
    }
    // The gate changes when --min-compatibility-version is raised: both variants are listed.
    std::vector<std::string> parts;
    if (!text.empty()) parts.push_back(text);
    if (std::string raised = HelpString(name, at_emulation, true); !raised.empty()) {
      parts.push_back(std::move(raised));
    }
    if (!parts.empty()) known.push_back("kube:" + Join(parts, ", or "));
  }
  std::sort(known.begin(), known.end());
  return "Comma-separated list of component:key=value pairs that describe feature gates for "
         "alpha/experimental features of different components.\n"
         "If the component is not specified, defaults to \"kube\". This flag can be repeatedly "
         "invoked. For example: --feature-gates 'wardle:featureA=true,wardle:featureB=false' "
         "--feature-gates 'kube:featureC=true'Options are:\n" +
         Join(known, "\n");
}

std::string VersionFlagOptions(bool emulation) {
  const MinorVersion floor = emulation ? kEmulationVersionFloor : kMinCompatibilityVersionFloor;
  const MinorVersion def = emulation ? BinaryMinorVersion() : DefaultMinCompatibilityVersion();
  return "kube=" + floor.String() + ".." + kBinaryVersion.String() + "(default:" + def.String() +
         ")";
}

// ComponentGlobalsRegistry.Set for the "kube" component: the versions, then the gates.
Status ResolveFeatureGates(FeatureGateOptions& fg, std::vector<std::string>& warnings) {
  ASSIGN_OR_RETURN(std::optional<MinorVersion> emulation, ParseVersionFlag(fg.emulated_version));
  if (emulation) {
    // SetEmulationVersion: the min compatibility version follows, one minor below (or the floor).
    fg.emulation = *emulation;
    fg.min_compatibility = std::max(MinorVersion{emulation->major, emulation->minor - 1},
                                    kMinCompatibilityVersionFloor);
  }
  ASSIGN_OR_RETURN(std::optional<MinorVersion> min_compat,
                   ParseVersionFlag(fg.min_compatibility_version));
  if (min_compat) fg.min_compatibility = *min_compat;

  // --feature-gates: "" (no component) and "kube" name the same component.
  if (fg.raw.count("") != 0 && fg.raw.count("kube") != 0) {
    return FailedPreconditionError(
        "set kube feature gates with default empty prefix or kube: prefix consistently, do not "
        "mix use");
  }
  std::vector<std::string> items;
  for (const auto& [component, values] : fg.raw) {
    if (component != "" && component != "kube") {
      return FailedPreconditionError("component not registered: " + component);
    }
    items.insert(items.end(), values.begin(), values.end());
  }
  ASSIGN_OR_RETURN(auto requested, ParseGateValues(items));
  std::map<std::string, bool, std::less<>> enabled;
  RETURN_IF_ERROR(SetFromMap(requested, fg.emulation, fg.min_compatibility, enabled, warnings));
  fg.explicit_gates = std::move(enabled);
  return OkStatus();
}

}  // namespace internal
}  // namespace stowage::app
