// VolumeBinding with unbound WaitForFirstConsumer claims, after upstream's binder_test.go and
// volume_binding_test.go: static matching, provisioning with topology and capacity, the capacity
// score, Reserve and Unreserve through the assume caches, and PreBind's writes and wait against a
// writer that plays the PV controller.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pkg/plugins/volume_binding/volume_binding.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/storage_handle.h"

namespace stowage::plugins::volume_binding::binder_test {
namespace {

using framework::Code;
using testing::BuildNode;
using testing::BuildPod;
using testing::StorageHandle;

api::Quantity Gi(int64_t n) {
  return api::Quantity::FromValue(n << 30, api::Quantity::Format::kBinarySI);
}

api::PersistentVolumeClaim Claim(std::string name, int64_t gi, std::string cls = "wait") {
  api::PersistentVolumeClaim c = testing::Claim(std::move(name), "", std::move(cls));
  c.metadata.uid = "uid-" + c.metadata.name;
  c.metadata.resource_version = "10";
  c.access_modes = {"ReadWriteOnce"};
  c.requests = api::ResourceList({{"storage", Gi(gi)}});
  return c;
}

api::PersistentVolume Volume(std::string name, int64_t gi, std::string zone = "",
                             std::string cls = "wait") {
  api::PersistentVolume pv;
  pv.metadata.name = std::move(name);
  pv.metadata.resource_version = "20";
  pv.capacity = api::ResourceList({{"storage", Gi(gi)}});
  pv.access_modes = {"ReadWriteOnce"};
  pv.storage_class_name = std::move(cls);
  pv.phase = "Available";
  if (!zone.empty()) {
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({"zone", "In", {std::move(zone)}});
    pv.node_affinity.emplace().terms.push_back(std::move(term));
  }
  return pv;
}

api::StorageClass Class(std::string name, std::string provisioner,
                        std::vector<std::string> zones = {}) {
  api::StorageClass sc = testing::Class(std::move(name), "WaitForFirstConsumer");
  sc.provisioner = std::move(provisioner);
  if (!zones.empty()) sc.allowed_topologies.push_back({{"zone", std::move(zones)}});
  return sc;
}

// A writer that stores what the binder writes and, unless told otherwise, then does what the PV
// controller and a provisioner would: binds the claims.
class ControllerWriter final : public framework::VolumeWriter {
 public:
  explicit ControllerWriter(StorageHandle& h) : h_(h) {}
  std::function<void(const api::PersistentVolumeClaim&)> on_claim;  // default: provision
  std::vector<std::string> written;

  StatusOr<std::shared_ptr<const api::PersistentVolume>> UpdateVolume(
      const api::PersistentVolume& pv) override {
    written.push_back("pv/" + pv.metadata.name + " claimRef=" + pv.claim_ref->name);
    auto stored = std::make_shared<api::PersistentVolume>(pv);
    stored->metadata.resource_version = Next();
    h_.pvs.Update(*stored);
    api::PersistentVolumeClaim pvc = *h_.pvcs.Get(pv.claim_ref->namespace_, pv.claim_ref->name);
    Bind(pvc, pv.metadata.name);
    return std::shared_ptr<const api::PersistentVolume>(stored);
  }
  StatusOr<std::shared_ptr<const api::PersistentVolumeClaim>> UpdateClaim(
      const api::PersistentVolumeClaim& claim) override {
    written.push_back("pvc/" + claim.metadata.name +
                      " selected-node=" + *claim.metadata.annotations.Get(kAnnSelectedNode));
    auto stored = std::make_shared<api::PersistentVolumeClaim>(claim);
    stored->metadata.resource_version = Next();
    h_.pvcs.Update(*stored);
    if (on_claim) {
      on_claim(*stored);
    } else {
      api::PersistentVolume pv = Volume("pvc-" + claim.metadata.name, 1);
      h_.pvs.Add(pv);
      Bind(*stored, pv.metadata.name);
    }
    return std::shared_ptr<const api::PersistentVolumeClaim>(stored);
  }
  void Bind(api::PersistentVolumeClaim pvc, const std::string& volume) {
    pvc.volume_name = volume;
    pvc.metadata.annotations = WithAnnotation(pvc.metadata.annotations, kAnnBindCompleted, "yes");
    pvc.metadata.resource_version = Next();
    h_.pvcs.Update(std::move(pvc));
  }
  std::string Next() { return std::to_string(++rv_); }

 private:
  StorageHandle& h_;
  int rv_ = 100;
};

struct Fixture {
  StorageHandle handle;
  ControllerWriter writer{handle};
  api::NodePtr a = BuildNode().Name("node-a").Label("zone", "a").Obj();
  api::NodePtr b = BuildNode().Name("node-b").Label("zone", "b").Obj();
  std::unique_ptr<VolumeBinding> pl;

  Fixture() {
    handle.writer = &writer;
    handle.classes.Add(Class("wait", ""));
    handle.classes.Add(Class("fast", "example.com/csi", {"a"}));
    handle.classes.Add(Class("any", "example.com/csi"));
  }
  VolumeBinding& Plugin() {
    if (!pl) {
      auto p = New(args_, handle, framework::Features{});
      pl.reset(dynamic_cast<VolumeBinding*>(p->release()));
    }
    return *pl;
  }
  api::PodPtr Pod(std::vector<std::string> claims, std::string name = "pod-a") {
    auto w = BuildPod().Name(name).Namespace("default").UID("uid-" + name);
    for (auto& c : claims) w.PVC(std::move(c));
    api::PodPtr pod = w.Obj();
    handle.pod_list.Add(*pod);
    return pod;
  }
  // The status Filter gives pod on node after PreFilter.
  framework::Status Filter(framework::CycleState& state, const api::PodPtr& pod,
                           const api::NodePtr& node) {
    framework::PreFilterResult r;
    auto info = framework::NewPodInfo(pod);
    framework::Status pre = Plugin().PreFilter(state, *info, {}, r);
    if (!pre.IsSuccess()) return pre;
    return Plugin().Filter(state, *info, *testing::MakeNodeInfo(node));
  }
  config::VolumeBindingArgs args_;
};

TEST(Binder, FilterMatchesProvisionsOrExplainsWhy) {
  struct Case {
    std::string name;
    std::vector<api::PersistentVolumeClaim> pvcs;
    std::vector<api::PersistentVolume> pvs;
    std::string on_a;  // "" for Success, else the message
    std::string on_b;
  };
  const std::string bind = std::string(kErrReasonBindConflict);
  api::PersistentVolume bound_elsewhere = Volume("pv-1", 1);
  bound_elsewhere.claim_ref = api::ObjectReference{.namespace_ = "default", .name = "other"};
  api::PersistentVolumeClaim selected_b = Claim("data", 1, "any");
  selected_b.metadata.annotations =
      api::StringMap(std::vector<api::StringMap::Entry>{{std::string(kAnnSelectedNode), "node-b"}});
  api::PersistentVolume prebound = Volume("pv-1", 1, "b");
  prebound.claim_ref = api::ObjectReference{.namespace_ = "default", .name = "data"};
  api::PersistentVolumeClaim rwx = Claim("data", 1);
  rwx.access_modes = {"ReadWriteMany"};
  std::vector<Case> cases = {
      {"a static volume without affinity fits everywhere",
       {Claim("data", 1)},
       {Volume("pv-1", 1)},
       "",
       ""},
      {"a static volume too small", {Claim("data", 2)}, {Volume("pv-1", 1)}, bind, bind},
      {"a static volume's affinity picks its node",
       {Claim("data", 1)},
       {Volume("pv-1", 1, "a")},
       "",
       bind},
      {"a volume bound to another claim is not matched",
       {Claim("data", 1)},
       {bound_elsewhere},
       bind,
       bind},
      {"a volume pre-bound to the claim decides alone",
       {Claim("data", 1)},
       {prebound, Volume("pv-2", 1)},
       bind,
       ""},
      {"access modes must all be offered", {rwx}, {Volume("pv-1", 1)}, bind, bind},
      {"a class of another name is not matched",
       {Claim("data", 1)},
       {Volume("pv-1", 1, "", "x")},
       bind,
       bind},
      {"two claims take two volumes",
       {Claim("data", 1), Claim("logs", 1)},
       {Volume("pv-1", 1), Volume("pv-2", 5)},
       "",
       ""},
      {"two claims, one volume",
       {Claim("data", 1), Claim("logs", 1)},
       {Volume("pv-1", 1)},
       bind,
       bind},
      {"provisioning where the class's topology allows", {Claim("data", 1, "fast")}, {}, "", bind},
      {"provisioning already started for another node", {selected_b}, {}, bind, ""},
  };
  for (const Case& c : cases) {
    Fixture f;
    std::vector<std::string> names;
    for (const auto& pvc : c.pvcs) {
      f.handle.pvcs.Add(pvc);
      names.push_back(pvc.metadata.name);
    }
    for (const auto& pv : c.pvs) f.handle.pvs.Add(pv);
    api::PodPtr pod = f.Pod(names);
    framework::CycleState sa, sb;
    framework::Status on_a = f.Filter(sa, pod, f.a);
    framework::Status on_b = f.Filter(sb, pod, f.b);
    EXPECT_EQ(on_a.Message(), c.on_a) << c.name;
    EXPECT_EQ(on_b.Message(), c.on_b) << c.name;
    if (!c.on_a.empty()) EXPECT_EQ(on_a.code(), Code::kUnschedulableAndUnresolvable) << c.name;
  }
}

TEST(Binder, CapacityDecidesWhereADriverReportsIt) {
  Fixture f;
  api::CSIDriver driver;
  driver.metadata.name = "example.com/csi";
  driver.storage_capacity = true;
  f.handle.drivers.Add(driver);
  api::CSIStorageCapacity cap;
  cap.metadata.name = "cap-a";
  cap.metadata.namespace_ = "kube-system";
  cap.storage_class_name = "fast";
  cap.capacity = Gi(4);
  cap.maximum_volume_size = Gi(2);
  cap.node_topology.emplace().match_labels =
      api::StringMap(std::vector<api::StringMap::Entry>{{"zone", "a"}});
  f.handle.capacities.Add(cap);
  f.handle.pvcs.Add(Claim("small", 1, "fast"));
  f.handle.pvcs.Add(Claim("big", 3, "fast"));
  framework::CycleState s1, s2;
  // maximumVolumeSize, not capacity, bounds one volume.
  EXPECT_EQ(f.Filter(s1, f.Pod({"big"}, "big"), f.a).Message(), kErrReasonNotEnoughSpace);
  EXPECT_TRUE(f.Filter(s2, f.Pod({"small"}, "small"), f.a).IsSuccess());
  // Score: 1Gi of the pool's 4Gi, 25% used, 75 by the default shape.
  int64_t score = -1;
  ASSERT_TRUE(
      f.Plugin().PreScore(s2, *framework::NewPodInfo(f.Pod({"small"}, "small")), {}).IsSuccess());
  ASSERT_TRUE(f.Plugin()
                  .Score(s2, *framework::NewPodInfo(f.Pod({"small"}, "small")),
                         *testing::MakeNodeInfo(f.a), score)
                  .IsSuccess());
  EXPECT_EQ(score, 75);
}

TEST(Binder, StaticBindingScoresByHowFullTheVolumeIs) {
  Fixture f;
  f.handle.pvcs.Add(Claim("data", 1));
  f.handle.pvs.Add(Volume("pv-1", 4, "a"));
  f.handle.pvs.Add(Volume("pv-2", 2, "b"));
  api::PodPtr pod = f.Pod({"data"});
  framework::CycleState state;
  framework::PreFilterResult r;
  auto info = framework::NewPodInfo(pod);
  ASSERT_TRUE(f.Plugin().PreFilter(state, *info, {}, r).IsSuccess());
  std::vector<int64_t> scores;
  for (const auto& n : {f.a, f.b}) {
    auto ni = testing::MakeNodeInfo(n);
    ASSERT_TRUE(f.Plugin().Filter(state, *info, *ni).IsSuccess());
    int64_t s = -1;
    ASSERT_TRUE(f.Plugin().Score(state, *info, *ni, s).IsSuccess());
    scores.push_back(s);
  }
  // 1Gi of 4Gi leaves more room than 1Gi of 2Gi: 75 against 50.
  EXPECT_EQ(scores, (std::vector<int64_t>{75, 50}));
}

TEST(Binder, ReserveAssumesSoTheNextPodTakesAnotherVolume) {
  Fixture f;
  f.handle.pvcs.Add(Claim("data-0", 1));
  f.handle.pvcs.Add(Claim("data-1", 1));
  f.handle.pvs.Add(Volume("pv-small", 1));
  f.handle.pvs.Add(Volume("pv-large", 3));
  api::PodPtr first = f.Pod({"data-0"}, "web-0");
  api::PodPtr second = f.Pod({"data-1"}, "web-1");
  framework::CycleState s1;
  ASSERT_TRUE(f.Filter(s1, first, f.a).IsSuccess());
  ASSERT_TRUE(f.Plugin().Reserve(s1, *first, "node-a").IsSuccess());
  auto assumed = f.Plugin().binder().volumes().Get("", "pv-small");
  ASSERT_TRUE(assumed->claim_ref.has_value());
  EXPECT_EQ(assumed->claim_ref->name, "data-0");
  EXPECT_EQ(*assumed->metadata.annotations.Get(kAnnBoundByController), "yes");
  // The second pod's smallest fit is now the large volume.
  framework::CycleState s2;
  ASSERT_TRUE(f.Filter(s2, second, f.a).IsSuccess());
  ASSERT_TRUE(f.Plugin().Reserve(s2, *second, "node-a").IsSuccess());
  EXPECT_EQ(f.Plugin().binder().volumes().Get("", "pv-large")->claim_ref->name, "data-1");
  // Unreserve gives the first volume back.
  f.Plugin().Unreserve(s1, *first, "node-a");
  EXPECT_FALSE(f.Plugin().binder().volumes().Get("", "pv-small")->claim_ref.has_value());
  EXPECT_EQ(f.Plugin().binder().volumes().assumed_count(), 1u);
}

TEST(Binder, PreBindWritesAndWaitsForTheController) {
  Fixture f;
  f.handle.pvcs.Add(Claim("data", 1));
  f.handle.pvcs.Add(Claim("scratch", 1, "fast"));
  f.handle.pvs.Add(Volume("pv-1", 1));
  api::PodPtr pod = f.Pod({"data", "scratch"});
  auto bound = std::make_shared<api::Pod>(*pod);
  bound->spec.node_name = "node-a";
  framework::CycleState state;
  ASSERT_TRUE(f.Filter(state, pod, f.a).IsSuccess());
  ASSERT_TRUE(f.Plugin().Reserve(state, *bound, "node-a").IsSuccess());
  EXPECT_TRUE(f.Plugin().PreBindPreFlight(state, *bound, "node-a").IsSuccess());
  framework::Status s = f.Plugin().PreBind(state, *bound, "node-a");
  EXPECT_TRUE(s.IsSuccess()) << s.Message();
  EXPECT_EQ(f.writer.written, (std::vector<std::string>{"pv/pv-1 claimRef=data",
                                                        "pvc/scratch selected-node=node-a"}));
}

TEST(Binder, PreBindSkipsWhenEverythingIsBound) {
  Fixture f;
  api::PersistentVolumeClaim c = Claim("data", 1);
  c.volume_name = "pv-1";
  c.metadata.annotations = api::StringMap({{std::string(kAnnBindCompleted), "yes"}});
  f.handle.pvcs.Add(c);
  f.handle.pvs.Add(Volume("pv-1", 1));
  api::PodPtr pod = f.Pod({"data"});
  framework::CycleState state;
  ASSERT_TRUE(f.Filter(state, pod, f.a).IsSuccess());
  ASSERT_TRUE(f.Plugin().Reserve(state, *pod, "node-a").IsSuccess());
  EXPECT_TRUE(f.Plugin().PreBindPreFlight(state, *pod, "node-a").IsSkip());
  EXPECT_TRUE(f.Plugin().PreBind(state, *pod, "node-a").IsSuccess());
  EXPECT_TRUE(f.writer.written.empty());
}

// What PreBind says when the claim's provisioning does not end well.
std::string PreBindFailure(
    const std::function<void(Fixture&, const api::PersistentVolumeClaim&)>& controller,
    bool delete_pod = false) {
  config::VolumeBindingArgs args;
  args.bind_timeout_seconds = 1;
  Fixture f;
  f.args_ = args;
  f.handle.pvcs.Add(Claim("scratch", 1, "fast"));
  api::PodPtr pod = f.Pod({"scratch"});
  auto bound = std::make_shared<api::Pod>(*pod);
  bound->spec.node_name = "node-a";
  if (delete_pod) f.handle.pod_list.Remove("default", "pod-a");
  f.writer.on_claim = [&](const api::PersistentVolumeClaim& c) { controller(f, c); };
  framework::CycleState state;
  EXPECT_TRUE(f.Filter(state, pod, f.a).IsSuccess());
  EXPECT_TRUE(f.Plugin().Reserve(state, *bound, "node-a").IsSuccess());
  framework::Status s = f.Plugin().PreBind(state, *bound, "node-a");
  EXPECT_EQ(s.code(), Code::kError);
  // Unreserve releases the assumed claim whatever happened.
  f.Plugin().Unreserve(state, *bound, "node-a");
  EXPECT_EQ(f.Plugin().binder().claims().assumed_count(), 0u);
  // scheduler_volume_scheduling_stage_error_total counts the failure once, as a bind error.
  EXPECT_EQ(f.handle.stage_errors(), std::vector<std::string>{"bind"});
  return s.Message();
}

TEST(Binder, PreBindGivesUpWithUpstreamsReasons) {
  EXPECT_EQ(PreBindFailure([](Fixture&, const api::PersistentVolumeClaim&) {}),
            "binding volumes: context deadline exceeded");
  EXPECT_EQ(PreBindFailure([](Fixture& f, const api::PersistentVolumeClaim& c) {
              f.handle.pvcs.Remove(c.metadata.namespace_, c.metadata.name);
            }),
            "binding volumes: failed to check provisioning pvc: persistentvolumeclaims "
            "\"default/scratch\" not found");
  EXPECT_EQ(PreBindFailure([](Fixture& f, const api::PersistentVolumeClaim& c) {
              api::PersistentVolumeClaim undone = c;
              undone.metadata.annotations =
                  api::StringMap(std::vector<api::StringMap::Entry>{{"other", "x"}});
              undone.metadata.resource_version = f.writer.Next();
              f.handle.pvcs.Update(undone);
            }),
            "binding volumes: provisioning failed for PVC \"scratch\"");
  EXPECT_EQ(PreBindFailure([](Fixture&, const api::PersistentVolumeClaim&) {}, true),
            "binding volumes: pod does not exist any more: pods \"pod-a\" not found");
}

TEST(Binder, HintsQueueOnlyForWhatMayHelp) {
  Fixture f;
  api::PodPtr pod = f.Pod({"data"});
  std::map<framework::EventResource, framework::QueueingHintFn> hints;
  for (auto& e : f.Plugin().EventsToRegister()) hints[e.event.resource] = e.hint;
  auto claim = [](std::string ns, std::string name) {
    api::PersistentVolumeClaim c = Claim(std::move(name), 1);
    c.metadata.namespace_ = std::move(ns);
    return framework::EventObject(std::make_shared<const api::PersistentVolumeClaim>(c));
  };
  auto& on_claim = hints[framework::EventResource::kPersistentVolumeClaim];
  EXPECT_EQ(on_claim(*pod, {}, claim("default", "data")), framework::QueueingHint::kQueue);
  EXPECT_EQ(on_claim(*pod, {}, claim("default", "other")), framework::QueueingHint::kSkip);
  EXPECT_EQ(on_claim(*pod, {}, claim("elsewhere", "data")), framework::QueueingHint::kSkip);
  auto cap = [](std::optional<api::Quantity> limit) {
    api::CSIStorageCapacity c;
    c.capacity = limit;
    return framework::EventObject(std::make_shared<const api::CSIStorageCapacity>(c));
  };
  auto& on_cap = hints[framework::EventResource::kCSIStorageCapacity];
  EXPECT_EQ(on_cap(*pod, cap(Gi(1)), cap(Gi(2))), framework::QueueingHint::kQueue);
  EXPECT_EQ(on_cap(*pod, cap(Gi(2)), cap(Gi(1))), framework::QueueingHint::kSkip);
  auto cls = [](std::vector<std::string> zones) {
    return framework::EventObject(
        std::make_shared<const api::StorageClass>(Class("fast", "p", std::move(zones))));
  };
  auto& on_class = hints[framework::EventResource::kStorageClass];
  EXPECT_EQ(on_class(*pod, cls({"a"}), cls({"a", "b"})), framework::QueueingHint::kQueue);
  EXPECT_EQ(on_class(*pod, cls({"a"}), cls({"a"})), framework::QueueingHint::kSkip);
}

}  // namespace
}  // namespace stowage::plugins::volume_binding::binder_test
