#include "stowage/plugins/helper/csi_translation.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <vector>

namespace stowage::plugins::helper {
namespace {

// One migratable in-tree plugin: the JSON key of its source (the same in a pod's volume and a
// PV's spec), its name and its CSI driver's.
struct Migration {
  std::string_view source;
  std::string_view in_tree;
  std::string_view driver;
};

constexpr std::array<Migration, 7> kMigrations = {{
    {"gcePersistentDisk", kGCEPDInTreePluginName, kGCEPDDriverName},
    {"awsElasticBlockStore", kAWSEBSInTreePluginName, kAWSEBSDriverName},
    {"cinder", kCinderInTreePluginName, kCinderDriverName},
    {"azureDisk", kAzureDiskInTreePluginName, kAzureDiskDriverName},
    {"azureFile", kAzureFileInTreePluginName, kAzureFileDriverName},
    {"vsphereVolume", kVSphereInTreePluginName, kVSphereDriverName},
    {"portworxVolume", kPortworxInTreePluginName, kPortworxDriverName},
}};

const Migration* BySource(std::string_view source) {
  for (const Migration& m : kMigrations) {
    if (m.source == source) return &m;
  }
  return nullptr;
}

// The placeholder of a GCE volume handle's unknown project and zone.
constexpr std::string_view kUnspecified = "UNSPECIFIED";

std::vector<std::string> Split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = s.find(sep, start)) != std::string_view::npos; start = at + sep.size()) {
    out.emplace_back(s.substr(start, at - start));
  }
  out.emplace_back(s.substr(start));
  return out;
}

// The EBS volume ID of an in-tree volume ID: "vol-..." as is, "aws://<zone>/vol-..." reduced to
// its path (upstream's KubernetesVolumeIDToEBSVolumeID, which parses it as a URL).
StatusOr<std::string> EbsVolumeId(const std::string& id) {
  constexpr std::string_view kPrefix = "aws://";
  if (id.compare(0, kPrefix.size(), kPrefix) != 0) return id;
  std::string_view rest = std::string_view(id).substr(kPrefix.size());
  rest = rest.substr(0, rest.find_first_of("?#"));
  const size_t slash = rest.find('/');
  std::string path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  // The path as url.Parse decodes it.
  std::string decoded;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      decoded += path[i];
      continue;
    }
    if (i + 2 >= path.size() || !std::isxdigit(static_cast<unsigned char>(path[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
      return InvalidArgumentError("Invalid disk name (" + id + "): parse \"" + id +
                                  "\": invalid URL escape \"" + path.substr(i, 3) + "\"");
    }
    decoded += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  const size_t b = decoded.find_first_not_of('/');
  const size_t e = decoded.find_last_not_of('/');
  std::string aws_id = b == std::string::npos ? "" : decoded.substr(b, e - b + 1);
  // ^vol-[^/]*$
  if (aws_id.compare(0, 4, "vol-") != 0 || aws_id.find('/') != std::string::npos) {
    return InvalidArgumentError("Invalid format for AWS volume (" + id + ")");
  }
  return aws_id;
}

StatusOr<CsiVolume> Ebs(const std::string& volume_id) {
  StatusOr<std::string> handle = EbsVolumeId(volume_id);
  if (!handle.ok()) {
    return InvalidArgumentError("failed to translate Kubernetes ID to EBS Volume ID " +
                                std::string(handle.status().message()));
  }
  return CsiVolume{std::string(kAWSEBSDriverName), *handle};
}

StatusOr<CsiVolume> AzureDisk(const std::string& uri, const std::optional<std::string>& kind) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  if (kind && lower(*kind) != "managed") {
    return InvalidArgumentError("kind(" + *kind + ") is not supported in csi migration");
  }
  return CsiVolume{std::string(kAzureDiskDriverName), uri};
}

// The region of a regional GCE PD's zones, all of the form <locale>-<region>-<zone>.
StatusOr<std::string> GceRegionOf(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    std::vector<std::string> parts = Split(zone, "-");
    if (parts.size() != 3) {
      return InvalidArgumentError(
          "zone in unexpected format, expected: {locale}-{region}-{zone}, got: " + zone);
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    std::string got;
    for (const std::string& r : regions) got += (got.empty() ? "" : " ") + r;
    return InvalidArgumentError("multiple or no regions gotten from zones, got: map[" + got + "]");
  }
  return *regions.begin();
}

std::string GceZonalHandle(std::string_view zone, const std::string& pd) {
  return "projects/" + std::string(kUnspecified) + "/zones/" + std::string(zone) + "/disks/" + pd;
}

constexpr std::string_view kZoneGA = "topology.kubernetes.io/zone";
constexpr std::string_view kRegionGA = "topology.kubernetes.io/region";
constexpr std::string_view kZoneBeta = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kRegionBeta = "failure-domain.beta.kubernetes.io/region";

bool HasKey(const std::optional<api::NodeSelector>& affinity, std::string_view key) {
  if (!affinity) return false;
  for (const api::NodeSelectorTerm& t : affinity->terms) {
    for (const api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == key) return true;
    }
  }
  return false;
}

// Whether any expression with this key has a value (upstream's getTopologyValues is not empty).
bool HasValues(const std::optional<api::NodeSelector>& affinity, std::string_view key) {
  if (!affinity) return false;
  for (const api::NodeSelectorTerm& t : affinity->terms) {
    for (const api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == key && !r.values.empty()) return true;
    }
  }
  return false;
}

void ReplaceKey(std::optional<api::NodeSelector>& affinity, std::string_view from,
                std::string_view to) {
  for (api::NodeSelectorTerm& t : affinity->terms) {
    for (api::NodeSelectorRequirement& r : t.match_expressions) {
      if (r.key == from) r.key = std::string(to);
    }
  }
}

// The CSI topology key that replaces the zone key, for the plugins whose translation has one.
std::optional<std::string_view> CsiZoneKey(std::string_view in_tree) {
  if (in_tree == kGCEPDInTreePluginName) return "topology.gke.io/zone";
  if (in_tree == kAWSEBSInTreePluginName) return "topology.ebs.csi.aws.com/zone";
  if (in_tree == kCinderInTreePluginName) return "topology.cinder.csi.openstack.org/zone";
  return std::nullopt;
}

}  // namespace

std::optional<api::NodeSelector> CsiNodeAffinityOf(const api::PersistentVolume& pv) {
  std::optional<api::NodeSelector> affinity = pv.node_affinity;
  const Migration* m = BySource(pv.source);
  std::optional<std::string_view> csi_key = m ? CsiZoneKey(m->in_tree) : std::nullopt;
  if (!csi_key) return affinity;
  // The affinity's keys decide between GA and beta labels, then the PV's labels; GA by default.
  bool beta = false;
  if (HasKey(affinity, kZoneGA)) {
    beta = false;
  } else if (HasKey(affinity, kZoneBeta)) {
    beta = true;
  } else if (pv.metadata.labels.Get(kZoneGA) != nullptr) {
    beta = false;
  } else if (pv.metadata.labels.Get(kZoneBeta) != nullptr) {
    beta = true;
  }
  const std::string_view zone_key = beta ? kZoneBeta : kZoneGA;
  if (HasValues(affinity, zone_key)) {
    ReplaceKey(affinity, zone_key, *csi_key);
  } else if (const std::string* label = pv.metadata.labels.Get(zone_key)) {
    std::set<std::string> zones;  // trimmed, without empties, sorted
    for (std::string& zone : Split(*label, "__")) {
      const size_t b = zone.find_first_not_of(" \t\n\v\f\r");
      if (b == std::string::npos) continue;
      zones.insert(zone.substr(b, zone.find_last_not_of(" \t\n\v\f\r") - b + 1));
    }
    if (!zones.empty()) {
      if (!affinity) affinity.emplace();
      if (affinity->terms.empty()) affinity->terms.emplace_back();
      for (api::NodeSelectorTerm& t : affinity->terms) {
        t.match_expressions.push_back(
            {std::string(*csi_key), "In", std::vector<std::string>(zones.begin(), zones.end())});
      }
    }
  }
  // Nodes may carry only the GA region label, so a beta region key is replaced.
  if (beta && HasValues(affinity, kRegionBeta)) ReplaceKey(affinity, kRegionBeta, kRegionGA);
  return affinity;
}

bool CsiMigrationOn(std::string_view in_tree_name) {
  return in_tree_name == kAWSEBSInTreePluginName || in_tree_name == kGCEPDInTreePluginName ||
         in_tree_name == kAzureDiskInTreePluginName || in_tree_name == kCinderInTreePluginName ||
         in_tree_name == kPortworxInTreePluginName;
}

bool IsInlineMigratable(const api::Volume& volume) { return BySource(volume.source) != nullptr; }

bool IsPVMigratable(const api::PersistentVolume& pv) { return BySource(pv.source) != nullptr; }

bool IsMigratableInTreePluginByName(std::string_view name) {
  return std::any_of(kMigrations.begin(), kMigrations.end(),
                     [&](const Migration& m) { return m.in_tree == name; });
}

std::optional<std::string_view> InTreePluginNameOf(const api::Volume& volume) {
  if (const Migration* m = BySource(volume.source)) return m->in_tree;
  return std::nullopt;
}

std::optional<std::string_view> InTreePluginNameOf(const api::PersistentVolume& pv) {
  if (const Migration* m = BySource(pv.source)) return m->in_tree;
  return std::nullopt;
}

std::optional<std::string_view> CsiDriverOfInTreePlugin(std::string_view in_tree_name) {
  for (const Migration& m : kMigrations) {
    if (m.in_tree == in_tree_name) return m.driver;
  }
  return std::nullopt;
}

StatusOr<CsiVolume> TranslateInlineVolumeToCsi(const api::Volume& v) {
  const Migration* m = BySource(v.source);
  if (m == nullptr) {
    return InvalidArgumentError("could not find in-tree plugin translation logic for \"" + v.name +
                                "\"");
  }
  const std::string driver(m->driver);
  if (m->in_tree == kGCEPDInTreePluginName) {
    return CsiVolume{driver, GceZonalHandle(kUnspecified, v.gce_pd_name)};
  }
  if (m->in_tree == kAWSEBSInTreePluginName) return Ebs(v.aws_volume_id);
  if (m->in_tree == kCinderInTreePluginName) return CsiVolume{driver, v.cinder_volume_id};
  if (m->in_tree == kAzureDiskInTreePluginName)
    return AzureDisk(v.azure_disk_uri, v.azure_disk_kind);
  if (m->in_tree == kPortworxInTreePluginName) return CsiVolume{driver, v.portworx_volume_id};
  return CsiVolume{driver, ""};  // Azure File, vSphere: see the header
}

StatusOr<CsiVolume> TranslatePVToCsi(const api::PersistentVolume& pv) {
  const Migration* m = BySource(pv.source);
  if (m == nullptr) {
    return InvalidArgumentError("could not find in-tree plugin translation logic for \"" +
                                pv.metadata.name + "\"");
  }
  const std::string driver(m->driver);
  if (m->in_tree == kGCEPDInTreePluginName) {
    // The zones of the PV's labels, beta first: one is a zonal disk, several a regional one.
    const std::string* label = pv.metadata.labels.Get("failure-domain.beta.kubernetes.io/zone");
    if (label == nullptr || label->empty()) {
      label = pv.metadata.labels.Get("topology.kubernetes.io/zone");
    }
    const std::vector<std::string> zones = Split(label ? *label : "", "__");
    if (zones.size() == 1 && !zones[0].empty()) {
      return CsiVolume{driver, GceZonalHandle(zones[0], pv.gce_pd_name)};
    }
    if (zones.size() > 1) {
      StatusOr<std::string> region = GceRegionOf(zones);
      if (!region.ok()) {
        return InvalidArgumentError("failed to get region from zones: " +
                                    std::string(region.status().message()));
      }
      return CsiVolume{driver, "projects/" + std::string(kUnspecified) + "/regions/" + *region +
                                   "/disks/" + pv.gce_pd_name};
    }
    return CsiVolume{driver, GceZonalHandle(kUnspecified, pv.gce_pd_name)};
  }
  if (m->in_tree == kAWSEBSInTreePluginName) return Ebs(pv.aws_volume_id);
  if (m->in_tree == kCinderInTreePluginName) return CsiVolume{driver, pv.cinder_volume_id};
  if (m->in_tree == kAzureDiskInTreePluginName) {
    return AzureDisk(pv.azure_disk_uri, pv.azure_disk_kind);
  }
  if (m->in_tree == kPortworxInTreePluginName) return CsiVolume{driver, pv.portworx_volume_id};
  return CsiVolume{driver, ""};  // Azure File, vSphere: see the header
}

}  // namespace stowage::plugins::helper
