// VolumeRestrictions, after upstream's volume_restrictions_test.go: disk conflicts of each kind
// of volume, ReadWriteOncePod claims in use, the PreFilter extensions that preemption uses, and
// the hint for a deleted pod.
#include "pkg/plugins/volume_restrictions/volume_restrictions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/plugins/names.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/storage_handle.h"

namespace stowage::plugins::volume_restrictions::volume_restrictions_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;

api::Volume Gce(std::string pd, bool read_only = false) {
  api::Volume v;
  v.name = "v";
  v.source = "gcePersistentDisk";
  v.gce_pd_name = std::move(pd);
  v.gce_read_only = read_only;
  return v;
}
api::Volume Aws(std::string id) {
  api::Volume v;
  v.name = "v";
  v.source = "awsElasticBlockStore";
  v.aws_volume_id = std::move(id);
  return v;
}
api::Volume Rbd(std::vector<std::string> monitors, std::string image, bool read_only = false) {
  api::Volume v;
  v.name = "v";
  v.source = "rbd";
  v.rbd_monitors = std::move(monitors);
  v.rbd_pool = "pool";
  v.rbd_image = std::move(image);
  v.rbd_read_only = read_only;
  return v;
}
api::Volume Iscsi(std::string iqn, bool read_only = false) {
  api::Volume v;
  v.name = "v";
  v.source = "iscsi";
  v.iscsi_target_portal = "127.0.0.1:3260";
  v.iscsi_iqn = std::move(iqn);
  v.iscsi_read_only = read_only;
  return v;
}

api::PodPtr WithVolume(const api::Volume& v) { return BuildPod().Name("p").Volume(v).Obj(); }

// Filter of pod on a node running existing, after PreFilter.
Code FilterOn(const api::PodPtr& pod, const std::vector<api::PodPtr>& existing) {
  testing::StorageHandle handle;
  VolumeRestrictions pl(handle, false);
  auto node = testing::MakeNodeInfo(BuildNode().Name("node-1").Obj(), existing);
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::NewPodInfo(pod);
  framework::Status pre = pl.PreFilter(state, *info, {node.get()}, result);
  if (pre.code() == Code::kSkip) return Code::kSuccess;
  EXPECT_TRUE(pre.IsSuccess()) << pre.Message();
  framework::Status s = pl.Filter(state, *info, *node);
  if (!s.IsSuccess()) EXPECT_EQ(s.Message(), kErrReasonDiskConflict);
  return s.code();
}

TEST(VolumeRestrictions, DiskConflicts) {
  const Code kNo = Code::kUnschedulable;
  const Code kYes = Code::kSuccess;
  struct Case {
    std::string name;
    api::Volume volume;
    std::vector<api::Volume> existing;
    Code want;
  };
  const std::vector<Case> cases = {
      {"gce: nothing", Gce("foo"), {}, kYes},
      {"gce: one state", Gce("foo"), {Gce("bar")}, kYes},
      {"gce: same state", Gce("foo"), {Gce("foo")}, kNo},
      {"gce: same disk, both read-only", Gce("foo", true), {Gce("foo", true)}, kYes},
      {"gce: same disk, one read-only", Gce("foo", true), {Gce("foo")}, kNo},
      {"aws: one state", Aws("foo"), {Aws("bar")}, kYes},
      {"aws: same state", Aws("foo"), {Aws("foo")}, kNo},
      {"rbd: different image", Rbd({"a", "b"}, "foo"), {Rbd({"c", "d"}, "foo")}, kYes},
      {"rbd: monitors overlap", Rbd({"a", "b"}, "foo"), {Rbd({"b", "e"}, "foo")}, kNo},
      {"rbd: overlap, other image", Rbd({"a", "b"}, "foo"), {Rbd({"b"}, "bar")}, kYes},
      {"rbd: both read-only", Rbd({"a"}, "foo", true), {Rbd({"a"}, "foo", true)}, kYes},
      {"iscsi: one state",
       Iscsi("iqn.2016-12.server:storage.target01"),
       {Iscsi("iqn.2017-12.server:storage.target01")},
       kYes},
      {"iscsi: same state",
       Iscsi("iqn.2016-12.server:storage.target01"),
       {Iscsi("iqn.2016-12.server:storage.target01")},
       kNo},
      {"iscsi: both read-only", Iscsi("iqn.x", true), {Iscsi("iqn.x", true)}, kYes},
      {"another kind of disk does not conflict", Gce("foo"), {Aws("foo")}, kYes},
  };
  for (const Case& c : cases) {
    std::vector<api::PodPtr> existing;
    for (const auto& v : c.existing) existing.push_back(WithVolume(v));
    EXPECT_EQ(FilterOn(WithVolume(c.volume), existing), c.want) << c.name;
  }
  // A pod without such volumes skips the plugin (upstream: "pod with a volume that doesn't
  // have restrictions").
  EXPECT_EQ(
      FilterOn(BuildPod().Name("p").ImageVolume("img", "busybox").Obj(), {WithVolume(Gce("foo"))}),
      kYes);
}

class AccessModes : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, mode] :
         std::vector<std::pair<std::string, std::string>>{{"claim-with-rwop-1", "ReadWriteOncePod"},
                                                          {"claim-with-rwop-2", "ReadWriteOncePod"},
                                                          {"claim-with-rwx", "ReadWriteMany"}}) {
      api::PersistentVolumeClaim c;
      c.metadata.name = name;
      c.metadata.namespace_ = "default";
      c.access_modes = {mode};
      handle_.pvcs.Add(c);
    }
  }
  api::PodPtr Pod(std::string name, std::vector<std::string> claims) {
    auto p = BuildPod().Name(std::move(name)).Namespace("default").Node("node-1");
    for (auto& c : claims) p.PVC(std::move(c));
    return p.Obj();
  }
  testing::StorageHandle handle_;
};

TEST_F(AccessModes, ReadWriteOncePodClaimsInUse) {
  const auto one = Pod("pod-with-one-pvc", {"claim-with-rwop-1"});
  const auto two = Pod("pod-with-two-pvcs", {"claim-with-rwop-1", "claim-with-rwop-2"});
  const auto rwx = Pod("pod-with-rwx", {"claim-with-rwx"});
  struct Case {
    std::string name;
    api::PodPtr pod;
    std::vector<api::PodPtr> existing;
    Code prefilter;
    std::string prefilter_message;
    Code filter;
  };
  const std::vector<Case> cases = {
      {"nothing", BuildPod().Obj(), {}, Code::kSkip, "", Code::kSuccess},
      {"failed to get PVC",
       Pod("p", {"missing"}),
       {},
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"missing\" not found",
       Code::kSuccess},
      {"no access mode conflict", one, {rwx}, Code::kSkip, "", Code::kSuccess},
      {"access mode conflict, unschedulable",
       Pod("c", {"claim-with-rwop-1"}),
       {one, rwx},
       Code::kSuccess,
       "",
       Code::kUnschedulable},
      {"two conflicts, unschedulable",
       Pod("c", {"claim-with-rwop-1", "claim-with-rwop-2"}),
       {two, rwx},
       Code::kSuccess,
       "",
       Code::kUnschedulable},
  };
  for (const Case& c : cases) {
    VolumeRestrictions pl(handle_, false);
    auto node = testing::MakeNodeInfo(BuildNode().Name("node-1").Obj(), c.existing);
    framework::CycleState state;
    framework::PreFilterResult result;
    auto info = framework::NewPodInfo(c.pod);
    framework::Status pre = pl.PreFilter(state, *info, {node.get()}, result);
    EXPECT_EQ(pre.code(), c.prefilter) << c.name;
    EXPECT_EQ(pre.Message(), c.prefilter_message) << c.name;
    if (!pre.IsSuccess()) continue;
    framework::Status s = pl.Filter(state, *info, *node);
    EXPECT_EQ(s.code(), c.filter) << c.name;
    if (!s.IsSuccess()) EXPECT_EQ(s.Message(), kErrReasonReadWriteOncePodConflict) << c.name;
  }
}

// Preemption removes the claim's user hypothetically; the node then fits, and adding it back
// restores the conflict.
TEST_F(AccessModes, ExtensionsFollowPreemptionsWhatIf) {
  const auto user = Pod("user", {"claim-with-rwop-1"});
  auto node = testing::MakeNodeInfo(BuildNode().Name("node-1").Obj(), {user});
  VolumeRestrictions pl(handle_, false);
  framework::CycleState state;
  framework::PreFilterResult result;
  auto info = framework::NewPodInfo(Pod("preemptor", {"claim-with-rwop-1"}));
  ASSERT_TRUE(pl.PreFilter(state, *info, {node.get()}, result).IsSuccess());
  EXPECT_EQ(pl.Filter(state, *info, *node).code(), Code::kUnschedulable);
  auto user_info = framework::NewPodInfo(user);
  ASSERT_TRUE(pl.RemovePod(state, **info, *user_info, *node).IsSuccess());
  EXPECT_TRUE(pl.Filter(state, *info, *node).IsSuccess());
  ASSERT_TRUE(pl.AddPod(state, **info, *user_info, *node).IsSuccess());
  EXPECT_EQ(pl.Filter(state, *info, *node).code(), Code::kUnschedulable);
}

TEST_F(AccessModes, DeletedPodHint) {
  VolumeRestrictions pl(handle_, false);
  framework::QueueingHintFn hint;
  for (const auto& e : pl.EventsToRegister()) {
    if (e.event.resource == framework::EventResource::kAssignedPod) hint = e.hint;
  }
  ASSERT_TRUE(hint);
  const auto pod = Pod("waiting", {"claim-with-rwop-1"});
  auto deleted = [&](api::PodPtr p) { return hint(*pod, framework::EventObject(p), {}); };
  using framework::QueueingHint;
  EXPECT_EQ(deleted(Pod("user", {"claim-with-rwop-1"})), QueueingHint::kQueue);
  EXPECT_EQ(deleted(Pod("other", {"claim-with-rwx"})), QueueingHint::kSkip);
  EXPECT_EQ(deleted(BuildPod().Name("x").Namespace("other").PVC("claim-with-rwop-1").Obj()),
            QueueingHint::kSkip);
  const auto disk_user = BuildPod().Name("d").Namespace("default").Volume(Gce("foo")).Obj();
  const auto disk_waiter = BuildPod().Name("w").Namespace("default").Volume(Gce("foo")).Obj();
  EXPECT_EQ(hint(*disk_waiter, framework::EventObject(disk_user), {}), QueueingHint::kQueue);
}

TEST_F(AccessModes, ClaimAddedHint) {
  VolumeRestrictions pl(handle_, false);
  framework::QueueingHintFn hint;
  for (const auto& e : pl.EventsToRegister()) {
    if (e.event.resource == framework::EventResource::kPersistentVolumeClaim) hint = e.hint;
  }
  ASSERT_TRUE(hint);
  const auto pod = Pod("waiting", {"claim-with-rwop-1"});
  auto added = [&](std::string ns, std::string name) {
    api::PersistentVolumeClaim c = testing::Claim(std::move(name));
    c.metadata.namespace_ = std::move(ns);
    return hint(*pod, {},
                framework::EventObject(std::make_shared<const api::PersistentVolumeClaim>(c)));
  };
  using framework::QueueingHint;
  EXPECT_EQ(added("default", "claim-with-rwop-1"), QueueingHint::kQueue);
  EXPECT_EQ(added("default", "claim-with-rwx"), QueueingHint::kSkip);
  EXPECT_EQ(added("other", "claim-with-rwop-1"), QueueingHint::kSkip);
}

TEST(VolumeRestrictions, MessagesAndNameAreUpstreams) {
  EXPECT_EQ(kErrReasonDiskConflict,
            testing::UpstreamFailureReason("VolumeRestrictions.ErrReasonDiskConflict"));
  EXPECT_EQ(kErrReasonReadWriteOncePodConflict,
            testing::UpstreamFailureReason("VolumeRestrictions.ErrReasonReadWriteOncePodConflict"));
  EXPECT_EQ(kName, names::kVolumeRestrictions);
}

}  // namespace
}  // namespace stowage::plugins::volume_restrictions::volume_restrictions_test
