// The in-tree to CSI translation, after csi-translation-lib's translate_test.go and the plugins'
// tests: names both ways, which sources migrate, and the handles and errors of each plugin.
#include "stowage/plugins/helper/csi_translation.h"

#include <gtest/gtest.h>

#include <string>

namespace stowage::plugins::helper::csi_translation_test {
namespace {

api::Volume Inline(std::string source) {
  api::Volume v;
  v.name = "vol";
  v.source = std::move(source);
  return v;
}

api::PersistentVolume Pv(std::string source) {
  api::PersistentVolume pv;
  pv.metadata.name = "pv";
  pv.source = std::move(source);
  return pv;
}

TEST(CsiTranslation, Names) {
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/aws-ebs"), "ebs.csi.aws.com");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/gce-pd"), "pd.csi.storage.gke.io");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/azure-disk"), "disk.csi.azure.com");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/azure-file"), "file.csi.azure.com");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/cinder"), "cinder.csi.openstack.org");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/vsphere-volume"), "csi.vsphere.vmware.com");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/portworx-volume"), "pxd.portworx.com");
  EXPECT_EQ(CsiDriverOfInTreePlugin("kubernetes.io/hostpath"), std::nullopt);
  EXPECT_TRUE(IsMigratableInTreePluginByName("kubernetes.io/vsphere-volume"));
  EXPECT_FALSE(IsMigratableInTreePluginByName("ebs.csi.aws.com"));
  EXPECT_EQ(InTreePluginNameOf(Inline("azureDisk")), "kubernetes.io/azure-disk");
  EXPECT_EQ(InTreePluginNameOf(Pv("portworxVolume")), "kubernetes.io/portworx-volume");
  EXPECT_EQ(InTreePluginNameOf(Pv("csi")), std::nullopt);
}

TEST(CsiTranslation, WhichSourcesMigrate) {
  for (const char* s : {"gcePersistentDisk", "awsElasticBlockStore", "cinder", "azureDisk",
                        "azureFile", "vsphereVolume", "portworxVolume"}) {
    EXPECT_TRUE(IsInlineMigratable(Inline(s))) << s;
    EXPECT_TRUE(IsPVMigratable(Pv(s))) << s;
  }
  for (const char* s : {"csi", "hostPath", "persistentVolumeClaim", "ephemeral", "rbd", "nfs"}) {
    EXPECT_FALSE(IsInlineMigratable(Inline(s))) << s;
    EXPECT_FALSE(IsPVMigratable(Pv(s))) << s;
  }
}

TEST(CsiTranslation, Ebs) {
  auto ebs = [](std::string id) {
    api::Volume v = Inline("awsElasticBlockStore");
    v.aws_volume_id = std::move(id);
    return TranslateInlineVolumeToCsi(v);
  };
  ASSERT_TRUE(ebs("vol-1").ok());
  EXPECT_EQ(ebs("vol-1")->driver, "ebs.csi.aws.com");
  EXPECT_EQ(ebs("vol-1")->volume_handle, "vol-1");
  EXPECT_EQ(ebs("aws://us-east-1a/vol-2")->volume_handle, "vol-2");
  EXPECT_EQ(ebs("aws:///vol-3")->volume_handle, "vol-3");
  EXPECT_EQ(ebs("anything")->volume_handle, "anything");
  ASSERT_FALSE(ebs("aws://us-east-1a/not-a-volume").ok());
  EXPECT_EQ(ebs("aws://us-east-1a/not-a-volume").status().message(),
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
            "(aws://us-east-1a/not-a-volume)");
  api::PersistentVolume pv = Pv("awsElasticBlockStore");
  pv.aws_volume_id = "aws://us-east-1a/vol-4";
  EXPECT_EQ(TranslatePVToCsi(pv)->volume_handle, "vol-4");
}

TEST(CsiTranslation, GcePd) {
  api::Volume v = Inline("gcePersistentDisk");
  v.gce_pd_name = "disk";
  EXPECT_EQ(TranslateInlineVolumeToCsi(v)->volume_handle,
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk");
  api::PersistentVolume pv = Pv("gcePersistentDisk");
  pv.gce_pd_name = "disk";
  EXPECT_EQ(TranslatePVToCsi(pv)->volume_handle,
            "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk");
  const std::string ga = "topology.kubernetes.io/zone";
  const std::string beta = "failure-domain.beta.kubernetes.io/zone";
  pv.metadata.labels = api::StringMap({{ga, "us-central1-a"}});
  EXPECT_EQ(TranslatePVToCsi(pv)->volume_handle,
            "projects/UNSPECIFIED/zones/us-central1-a/disks/disk");
  pv.metadata.labels = api::StringMap({{ga, "us-central1-a"}, {beta, "us-east1-b__us-east1-c"}});
  EXPECT_EQ(TranslatePVToCsi(pv)->volume_handle,
            "projects/UNSPECIFIED/regions/us-east1/disks/disk");
  pv.metadata.labels = api::StringMap({{beta, "us-east1-b__europe-west1-c"}});
  EXPECT_FALSE(TranslatePVToCsi(pv).ok());
  pv.metadata.labels = api::StringMap({{beta, "zone__other"}});
  EXPECT_EQ(TranslatePVToCsi(pv).status().message(),
            "failed to get region from zones: zone in unexpected format, expected: "
            "{locale}-{region}-{zone}, got: zone");
}

TEST(CsiTranslation, AzureDisk) {
  api::Volume v = Inline("azureDisk");
  v.azure_disk_uri = "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d";
  EXPECT_EQ(TranslateInlineVolumeToCsi(v)->volume_handle, v.azure_disk_uri);
  v.azure_disk_kind = "managed";
  EXPECT_EQ(TranslateInlineVolumeToCsi(v)->driver, "disk.csi.azure.com");
  v.azure_disk_kind = "Shared";
  ASSERT_FALSE(TranslateInlineVolumeToCsi(v).ok());
  EXPECT_EQ(TranslateInlineVolumeToCsi(v).status().message(),
            "kind(Shared) is not supported in csi migration");
}

TEST(CsiTranslation, OtherPlugins) {
  api::Volume cinder = Inline("cinder");
  cinder.cinder_volume_id = "c1";
  EXPECT_EQ(TranslateInlineVolumeToCsi(cinder)->volume_handle, "c1");
  api::PersistentVolume px = Pv("portworxVolume");
  px.portworx_volume_id = "p1";
  EXPECT_EQ(TranslatePVToCsi(px)->volume_handle, "p1");
  EXPECT_EQ(TranslateInlineVolumeToCsi(Inline("azureFile"))->driver, "file.csi.azure.com");
  EXPECT_EQ(TranslateInlineVolumeToCsi(Inline("vsphereVolume"))->driver, "csi.vsphere.vmware.com");
  EXPECT_EQ(TranslateInlineVolumeToCsi(Inline("hostPath")).status().message(),
            "could not find in-tree plugin translation logic for \"vol\"");
}

api::NodeSelectorTerm Term(std::vector<api::NodeSelectorRequirement> expressions) {
  api::NodeSelectorTerm t;
  t.match_expressions = std::move(expressions);
  return t;
}

TEST(CsiTranslation, NodeAffinity) {
  const std::string zone = "topology.kubernetes.io/zone";
  const std::string region = "topology.kubernetes.io/region";
  const std::string beta_zone = "failure-domain.beta.kubernetes.io/zone";
  const std::string beta_region = "failure-domain.beta.kubernetes.io/region";
  const std::string gke = "topology.gke.io/zone";
  struct Case {
    std::string name;
    std::string source;
    std::vector<api::NodeSelectorTerm> terms;  // none: no affinity
    api::StringMap labels;
    std::vector<api::NodeSelectorTerm> want;  // none: no affinity
  };
  const api::NodeSelectorRequirement host = {"kubernetes.io/hostname", "In", {"n1"}};
  std::vector<Case> cases = {
      {"GA zone key replaced, GA region kept",
       "gcePersistentDisk",
       {Term({{zone, "In", {"us-east1-a"}}, {region, "In", {"us-east1"}}})},
       {},
       {Term({{gke, "In", {"us-east1-a"}}, {region, "In", {"us-east1"}}})}},
      {"beta keys: zone to the driver's, region to GA, in every term",
       "gcePersistentDisk",
       {Term({{beta_zone, "In", {"a"}}, {beta_region, "In", {"r"}}}),
        Term({{beta_zone, "In", {"b"}}})},
       {},
       {Term({{gke, "In", {"a"}}, {region, "In", {"r"}}}), Term({{gke, "In", {"b"}}})}},
      {"no affinity: the zone label's zones, trimmed, sorted, without empties",
       "awsElasticBlockStore",
       {},
       api::StringMap({{zone, " us-east-1b__us-east-1a__ __"}}),
       {Term({{"topology.ebs.csi.aws.com/zone", "In", {"us-east-1a", "us-east-1b"}}})}},
      {"the label's zones are added to each term",
       "cinder",
       {Term({host}), Term({host})},
       api::StringMap({{beta_zone, "nova"}}),
       {Term({host, {"topology.cinder.csi.openstack.org/zone", "In", {"nova"}}}),
        Term({host, {"topology.cinder.csi.openstack.org/zone", "In", {"nova"}}})}},
      {"an affinity zone key wins over the label",
       "gcePersistentDisk",
       {Term({{zone, "In", {"x"}}})},
       api::StringMap({{zone, "y"}}),
       {Term({{gke, "In", {"x"}}})}},
      {"a zone key without values is not replaced; the label is added",
       "gcePersistentDisk",
       {Term({{zone, "Exists", {}}})},
       api::StringMap({{zone, "y"}}),
       {Term({{zone, "Exists", {}}, {gke, "In", {"y"}}})}},
      {"an empty label adds nothing", "gcePersistentDisk", {}, api::StringMap({{zone, ""}}), {}},
      {"Azure Disk keeps its affinity",
       "azureDisk",
       {Term({{zone, "In", {"a"}}})},
       {},
       {Term({{zone, "In", {"a"}}})}},
      {"a CSI volume keeps its affinity",
       "csi",
       {Term({{zone, "In", {"a"}}})},
       {},
       {Term({{zone, "In", {"a"}}})}},
  };
  for (const Case& c : cases) {
    api::PersistentVolume pv = Pv(c.source);
    pv.metadata.labels = c.labels;
    if (!c.terms.empty()) pv.node_affinity.emplace().terms = c.terms;
    std::optional<api::NodeSelector> got = CsiNodeAffinityOf(pv);
    if (c.want.empty()) {
      EXPECT_FALSE(got.has_value()) << c.name;
      continue;
    }
    ASSERT_TRUE(got.has_value()) << c.name;
    EXPECT_EQ(got->terms, c.want) << c.name;
  }
}

TEST(CsiTranslation, MigrationOnForTheBinder) {
  for (std::string_view on :
       {kAWSEBSInTreePluginName, kGCEPDInTreePluginName, kAzureDiskInTreePluginName,
        kCinderInTreePluginName, kPortworxInTreePluginName}) {
    EXPECT_TRUE(CsiMigrationOn(on)) << on;
  }
  EXPECT_FALSE(CsiMigrationOn(kAzureFileInTreePluginName));
  EXPECT_FALSE(CsiMigrationOn(kVSphereInTreePluginName));
  EXPECT_FALSE(CsiMigrationOn("example.com/csi"));
}

}  // namespace
}  // namespace stowage::plugins::helper::csi_translation_test
