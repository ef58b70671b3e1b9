// In-tree volume plugins and the CSI drivers that replace them, as k8s.io/csi-translation-lib
// (at the pinned release) maps them: which pod volumes and PersistentVolumes are migratable, the
// names on both sides, the CSI driver and volume handle a migrated volume gets, and a migrated
// PV's node affinity. Only what the scheduler's volume plugins read is translated (no access
// modes or secrets).
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "stowage/api/types.h"
#include "stowage/common/status.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::plugins::helper {

// The in-tree plugins the library migrates, by name (csi-translation-lib/plugins).
inline constexpr std::string_view kGCEPDInTreePluginName = "kubernetes.io/gce-pd";
inline constexpr std::string_view kAWSEBSInTreePluginName = "kubernetes.io/aws-ebs";
inline constexpr std::string_view kCinderInTreePluginName = "kubernetes.io/cinder";
inline constexpr std::string_view kAzureDiskInTreePluginName = "kubernetes.io/azure-disk";
inline constexpr std::string_view kAzureFileInTreePluginName = "kubernetes.io/azure-file";
inline constexpr std::string_view kVSphereInTreePluginName = "kubernetes.io/vsphere-volume";
inline constexpr std::string_view kPortworxInTreePluginName = "kubernetes.io/portworx-volume";

// The CSI drivers that replace them.
inline constexpr std::string_view kGCEPDDriverName = "pd.csi.storage.gke.io";
inline constexpr std::string_view kAWSEBSDriverName = "ebs.csi.aws.com";
inline constexpr std::string_view kCinderDriverName = "cinder.csi.openstack.org";
inline constexpr std::string_view kAzureDiskDriverName = "disk.csi.azure.com";
inline constexpr std::string_view kAzureFileDriverName = "file.csi.azure.com";
inline constexpr std::string_view kVSphereDriverName = "csi.vsphere.vmware.com";
inline constexpr std::string_view kPortworxDriverName = "pxd.portworx.com";

// The CSI side of a translated volume.
struct CsiVolume {
  std::string driver;
  std::string volume_handle;
};

// The CSINode annotation that lists the in-tree plugins migrated to CSI on its node.
inline constexpr std::string_view kAnnMigratedPlugins =
    "storage.alpha.kubernetes.io/migrated-plugins";

// Whether the scheduler translates this in-tree plugin's volumes to CSI at the pinned release
// (the five whose migration is on: AWS EBS, GCE PD, Azure Disk, Cinder, Portworx).
bool CsiMigrationOn(std::string_view in_tree_name);

// Whether the library can translate an inline volume / a PV (upstream's IsInlineMigratable and
// IsPVMigratable): its source is one of the seven above.
bool IsInlineMigratable(const api::Volume& volume);
bool IsPVMigratable(const api::PersistentVolume& pv);

// Whether name is one of the seven in-tree plugins (IsMigratableIntreePluginByName).
bool IsMigratableInTreePluginByName(std::string_view name);

// The in-tree plugin of a migratable volume or PV (GetInTreePluginNameFromSpec); nullopt when it
// is not migratable.
std::optional<std::string_view> InTreePluginNameOf(const api::Volume& volume);
std::optional<std::string_view> InTreePluginNameOf(const api::PersistentVolume& pv);

// The CSI driver that replaces an in-tree plugin (GetCSINameFromInTreeName); nullopt for a name
// that is none of the seven.
std::optional<std::string_view> CsiDriverOfInTreePlugin(std::string_view in_tree_name);

// The CSI driver and volume handle of a migratable inline volume or PV
// (TranslateInTreeInlineVolumeToCSI, TranslateInTreePVToCSI), or upstream's error: an AWS volume
// ID that is not an EBS one, an Azure disk whose kind is not Managed, a GCE PD whose zone labels
// name several regions, a volume that is not migratable. The handle of an Azure File or vSphere
// volume is left empty: the scheduler never counts those (their migration is not on for
// NodeVolumeLimits), only their driver is read.
StatusOr<CsiVolume> TranslateInlineVolumeToCsi(const api::Volume& volume);
StatusOr<CsiVolume> TranslatePVToCsi(const api::PersistentVolume& pv);

// The node affinity a migratable PV has once TranslateInTreePVToCSI has run: for GCE PD, AWS EBS
// and Cinder the zone key of its affinity (or, without one, its zone label's zones) becomes the
// driver's topology key and a beta region key the GA one; other plugins keep theirs.
std::optional<api::NodeSelector> CsiNodeAffinityOf(const api::PersistentVolume& pv);

}  // namespace stowage::plugins::helper

#pragma GCC visibility pop
