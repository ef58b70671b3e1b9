// Decoding of real objects captured from the test cluster (tests/fixtures/capture.sh), watch
// streams, API errors, and hostile input: deep nesting, oversized documents, wrong types.
#include "pkg/api/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "tests/testing/fixtures.h"

namespace stowage::api::decode_test {
namespace {

using stowage::testing::ReadFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DecodePod, ReadsEveryFieldTheSchedulerUses) {
  auto pod = Decode<Pod>(ReadFixture("api/pod.json"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  const Pod& p = *pod;
  EXPECT_EQ(p.metadata.name, "rich");
  EXPECT_EQ(p.metadata.namespace_, "default");
  EXPECT_FALSE(p.metadata.uid.empty());
  EXPECT_FALSE(p.metadata.resource_version.empty());
  EXPECT_EQ(*p.metadata.labels.Get("app"), "web");
  EXPECT_EQ(*p.metadata.annotations.Get("example.com/owner"), "team-a");
  EXPECT_FALSE(p.metadata.annotations.Has("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_FALSE(p.metadata.deletion_timestamp.has_value());

  EXPECT_EQ(p.spec.scheduler_name, "stowage");
  EXPECT_EQ(p.spec.priority, 0);
  EXPECT_EQ(p.spec.preemption_policy, "PreemptLowerPriority");
  EXPECT_EQ(*p.spec.node_selector.Get("tier"), "gold");
  EXPECT_THAT(p.spec.scheduling_gates, ElementsAre("example.com/wait"));

  ASSERT_EQ(p.spec.init_containers.size(), 2u);
  EXPECT_FALSE(p.spec.init_containers[0].restart_policy.has_value());
  EXPECT_EQ(p.spec.init_containers[1].restart_policy, "Always");  // a sidecar
  ASSERT_EQ(p.spec.containers.size(), 1u);
  const Container& app = p.spec.containers[0];
  EXPECT_EQ(app.resources.requests.Get("cpu")->MilliValue(), 500);
  EXPECT_EQ(app.resources.requests.Get("memory")->Value(), int64_t{1} << 30);
  EXPECT_EQ(app.resources.requests.Get("example.com/gpu")->Value(), 1);
  EXPECT_EQ(app.resources.limits.Get("memory")->Value(), int64_t{3} << 29);
  ASSERT_EQ(app.ports.size(), 2u);
  EXPECT_EQ(app.ports[0].host_port, 80);
  EXPECT_EQ(app.ports[0].protocol, "TCP");
  EXPECT_EQ(app.ports[1].protocol, "UDP");
  EXPECT_EQ(app.ports[1].host_ip, "127.0.0.1");

  // The third toleration (not-ready, 300 s) is added by DefaultTolerationSeconds admission.
  ASSERT_EQ(p.spec.tolerations.size(), 3u);
  EXPECT_EQ(p.spec.tolerations[0].op, "Equal");
  EXPECT_EQ(p.spec.tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(p.spec.tolerations[1].op, "Exists");
  EXPECT_EQ(p.spec.tolerations[1].toleration_seconds, 300);

  ASSERT_TRUE(p.spec.affinity.has_value());
  const auto& na = *p.spec.affinity->node_affinity;
  ASSERT_EQ(na.required->terms.size(), 1u);
  const auto& term = na.required->terms[0];
  ASSERT_EQ(term.match_expressions.size(), 2u);
  EXPECT_EQ(term.match_expressions[1].op, "Gt");
  EXPECT_THAT(term.match_expressions[1].values, ElementsAre("4"));
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  ASSERT_EQ(na.preferred.size(), 1u);
  EXPECT_EQ(na.preferred[0].weight, 20);
  const auto& anti = *p.spec.affinity->pod_anti_affinity;
  ASSERT_EQ(anti.required.size(), 1u);
  EXPECT_EQ(anti.required[0].topology_key, "kubernetes.io/hostname");
  EXPECT_THAT(anti.required[0].match_label_keys, ElementsAre("pod-template-hash"));
  const auto& aff = *p.spec.affinity->pod_affinity;
  ASSERT_EQ(aff.preferred.size(), 1u);
  EXPECT_EQ(aff.preferred[0].weight, 50);
  EXPECT_THAT(aff.preferred[0].term.namespaces, ElementsAre("default"));

  ASSERT_EQ(p.spec.topology_spread_constraints.size(), 1u);
  const auto& tsc = p.spec.topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 1);
  EXPECT_EQ(tsc.when_unsatisfiable, "DoNotSchedule");
  EXPECT_EQ(tsc.min_domains, 2);
  EXPECT_EQ(tsc.node_taints_policy, "Ignore");

  ASSERT_EQ(p.spec.volumes.size(), 3u);
  EXPECT_EQ(p.spec.volumes[0].source, "persistentVolumeClaim");
  EXPECT_EQ(p.spec.volumes[0].claim_name, "fixture-pvc");
  EXPECT_TRUE(p.spec.volumes[0].claim_read_only);
  EXPECT_EQ(p.spec.volumes[1].source, "emptyDir");
  EXPECT_EQ(p.status.phase, "Pending");
}

TEST(DecodeNode, ReadsTaintsResourcesImagesAndConditions) {
  auto node = Decode<Node>(ReadFixture("api/node.json"));
  ASSERT_TRUE(node.ok()) << node.status();
  EXPECT_EQ(node->metadata.name, "fixture-node");
  EXPECT_TRUE(node->metadata.namespace_.empty());
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[0], (Taint{"dedicated", "infra", "NoSchedule"}));
  EXPECT_EQ(node->spec.taints[1].effect, "PreferNoSchedule");
  EXPECT_EQ(node->status.allocatable.Get("cpu")->MilliValue(), 7500);
  EXPECT_EQ(node->status.allocatable.Get("memory")->Value(), int64_t{31} << 30);
  EXPECT_EQ(node->status.allocatable.Get("example.com/gpu")->Value(), 2);
  ASSERT_EQ(node->status.images.size(), 1u);
  EXPECT_EQ(node->status.images[0].size_bytes, 320368);
  EXPECT_EQ(node->status.images[0].names.size(), 2u);
  ASSERT_FALSE(node->status.conditions.empty());
  EXPECT_EQ(node->status.conditions[0].type, "Ready");
}

// The in-place resize view: container and pod-level allocated/applied resources, where an
// absent list stays unset (upstream's nil) and differs from an empty one.
TEST(DecodePod, ReadsResizeStatus) {
  auto p = Decode<Pod>(R"({"metadata":{"name":"p"},"status":{
      "allocatedResources":{"cpu":"2"},
      "resources":{"requests":{"cpu":"1500m"}},
      "containerStatuses":[
        {"name":"c","image":"x","ready":true,"allocatedResources":{"cpu":"1","memory":"1Gi"},
         "resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"1"}}},
        {"name":"d","resources":{}}],
      "initContainerStatuses":[{"name":"init"}]}})");
  ASSERT_TRUE(p.ok()) << p.status();
  const PodStatus& st = p->status;
  ASSERT_TRUE(st.allocated_resources.has_value());
  EXPECT_EQ(st.allocated_resources->Get("cpu")->MilliValue(), 2000);
  ASSERT_TRUE(st.resources.has_value());
  ASSERT_TRUE(st.resources->requests.has_value());
  EXPECT_EQ(st.resources->requests->Get("cpu")->MilliValue(), 1500);
  EXPECT_FALSE(st.resources->limits.has_value());
  ASSERT_EQ(st.container_statuses.size(), 2u);
  const ContainerStatus& c = st.container_statuses[0];
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.allocated_resources->Get("memory")->Value(), int64_t{1} << 30);
  EXPECT_EQ(c.resources->requests->Get("cpu")->MilliValue(), 500);
  EXPECT_EQ(c.resources->limits->Get("cpu")->MilliValue(), 1000);
  const ContainerStatus& d = st.container_statuses[1];
  EXPECT_FALSE(d.allocated_resources.has_value());
  ASSERT_TRUE(d.resources.has_value());
  EXPECT_FALSE(d.resources->requests.has_value());
  ASSERT_EQ(st.init_container_statuses.size(), 1u);
  EXPECT_EQ(st.init_container_statuses[0].name, "init");
  EXPECT_FALSE(st.init_container_statuses[0].resources.has_value());
}

TEST(DecodeList, ReadsItemsAndSkipsManagedFields) {
  auto list = DecodeList<Pod>(ReadFixture("api/podlist.json"));
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_FALSE(list->resource_version.empty());
  EXPECT_TRUE(list->continue_token.empty());
  ASSERT_FALSE(list->items.empty());
  EXPECT_NE(ReadFixture("api/podlist.json").find("managedFields"), std::string::npos);
  for (const auto& p : list->items) EXPECT_FALSE(p->metadata.name.empty());
}

TEST(DecodeOtherKinds, ReadTheirSchedulingFields) {
  auto pv = Decode<PersistentVolume>(ReadFixture("api/pv.json"));
  ASSERT_TRUE(pv.ok()) << pv.status();
  EXPECT_EQ(pv->csi_driver, "csi.example.com");
  EXPECT_EQ(pv->capacity.Get("storage")->Value(), int64_t{10} << 30);
  ASSERT_TRUE(pv->node_affinity.has_value());
  EXPECT_EQ(pv->node_affinity->terms[0].match_expressions[0].key, "topology.kubernetes.io/zone");

  auto pvc = Decode<PersistentVolumeClaim>(ReadFixture("api/pvc.json"));
  ASSERT_TRUE(pvc.ok()) << pvc.status();
  EXPECT_THAT(pvc->access_modes, ElementsAre("ReadWriteOncePod"));
  EXPECT_EQ(pvc->storage_class_name, "fixture-sc");
  EXPECT_EQ(pvc->requests.Get("storage")->Value(), int64_t{5} << 30);

  auto sc = Decode<StorageClass>(ReadFixture("api/storageclass.json"));
  ASSERT_TRUE(sc.ok()) << sc.status();
  EXPECT_EQ(sc->volume_binding_mode, "WaitForFirstConsumer");
  ASSERT_EQ(sc->allowed_topologies.size(), 1u);
  EXPECT_THAT(sc->allowed_topologies[0][0].values, ElementsAre("zone-a", "zone-b"));

  auto pdb = Decode<PodDisruptionBudget>(ReadFixture("api/pdb.json"));
  ASSERT_TRUE(pdb.ok()) << pdb.status();
  ASSERT_TRUE(pdb->max_unavailable.has_value());
  EXPECT_TRUE(pdb->max_unavailable->is_string);
  EXPECT_EQ(pdb->max_unavailable->str_value, "25%");

  auto svc = Decode<Service>(ReadFixture("api/service.json"));
  ASSERT_TRUE(svc.ok()) << svc.status();
  EXPECT_EQ(*svc->selector.Get("app"), "web");

  auto rs = Decode<ReplicaSet>(ReadFixture("api/replicaset.json"));
  ASSERT_TRUE(rs.ok()) << rs.status();
  EXPECT_EQ(rs->replicas, 3);
  EXPECT_EQ(*rs->selector->match_labels.Get("app"), "rs");

  auto ss = Decode<StatefulSet>(ReadFixture("api/statefulset.json"));
  ASSERT_TRUE(ss.ok()) << ss.status();
  EXPECT_EQ(ss->selector->match_expressions[0].op, "In");

  auto ns = Decode<Namespace>(ReadFixture("api/namespace.json"));
  ASSERT_TRUE(ns.ok()) << ns.status();
  EXPECT_EQ(ns->phase, "Active");
}

TEST(DecodeWatch, ReadsARealStreamInOrder) {
  std::istringstream in(ReadFixture("api/watch-pods.jsonl"));
  std::vector<WatchEventType> types;
  std::string line;
  std::string streamed_rv;
  while (std::getline(in, line)) {
    auto ev = DecodeWatchEvent<Pod>(line);
    ASSERT_TRUE(ev.ok()) << ev.status();
    types.push_back(ev->type);
    EXPECT_FALSE(ev->resource_version.empty());
    if (ev->object && ev->object->metadata.name == "streamed") streamed_rv = ev->resource_version;
  }
  auto count = [&](WatchEventType t) { return std::count(types.begin(), types.end(), t); };
  EXPECT_GE(count(WatchEventType::kAdded), 1);
  EXPECT_GE(count(WatchEventType::kModified), 1);
  EXPECT_EQ(count(WatchEventType::kDeleted), 1);
  EXPECT_GE(count(WatchEventType::kBookmark), 1);
  EXPECT_FALSE(streamed_rv.empty());
}

TEST(DecodeWatch, ErrorEventCarriesTheApiStatus) {
  std::string line = ReadFixture("api/watch-gone.jsonl");
  auto ev = DecodeWatchEvent<Pod>(line);
  ASSERT_TRUE(ev.ok()) << ev.status();
  EXPECT_EQ(ev->type, WatchEventType::kError);
  EXPECT_EQ(ev->error.code, 410);
  EXPECT_EQ(ev->error.reason, "Expired");
  EXPECT_THAT(ev->error.message, HasSubstr("too old resource version"));
}

TEST(DecodeWatch, RejectsUnknownTypesAndMissingObjects) {
  EXPECT_THAT(DecodeWatchEvent<Pod>(R"({"type":"EXPLODED","object":{}})").status().message(),
              HasSubstr("unknown event type"));
  EXPECT_FALSE(DecodeWatchEvent<Pod>(R"({"type":"ADDED"})").ok());
}

TEST(DecodeApiStatus, FallsBackToThePrintableBodyPrefix) {
  ApiStatus s = DecodeApiStatus(
      "<html>\x01"
      "bad gateway</html>",
      502);
  EXPECT_EQ(s.code, 502);
  EXPECT_EQ(s.message, "<html> bad gateway</html>");
  ApiStatus c =
      DecodeApiStatus(R"({"kind":"Status","reason":"Conflict","message":"m","code":409})", 409);
  EXPECT_EQ(c.reason, "Conflict");
}

TEST(DecodeErrors, NameTheObjectAndTheFieldPath) {
  auto bad = Decode<Pod>(R"({"metadata":{"name":"p","namespace":"ns"},
      "spec":{"containers":[{"name":"a"},{"name":"b","resources":{"requests":{"cpu":"1x"}}}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("Pod ns/p: spec.containers[1].resources.requests.cpu: "));
  EXPECT_THAT(bad.status().message(), HasSubstr("1x"));

  auto wrong_type = Decode<Node>(R"({"metadata":{"name":"n"},"spec":{"unschedulable":"yes"}})");
  EXPECT_THAT(wrong_type.status().message(),
              HasSubstr("Node n: spec.unschedulable: expected a boolean"));
  auto out_of_range = Decode<Pod>(R"({"spec":{"priority":99999999999}})");
  EXPECT_THAT(out_of_range.status().message(),
              HasSubstr("spec.priority: integer out of 32-bit range"));
  EXPECT_THAT(Decode<Pod>("{\"metadata\":").status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(Decode<Pod>("[1,2]").status().message(), HasSubstr("expected a JSON object"));
}

TEST(DecodeLimits, RejectsDeepNestingWithoutCrashing) {
  std::string deep = R"({"metadata":{"name":"p"},"spec":{"x":)";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += "}}";
  auto r = Decode<Pod>(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("nested deeper than 100 levels"));
  auto list = DecodeList<Pod>(deep);
  EXPECT_FALSE(list.ok());
}

TEST(DecodeLimits, RejectsOversizedObjectsBeforeParsing) {
  std::string big = R"({"metadata":{"name":"p","annotations":{"a":")" +
                    std::string(kMaxObjectBytes, 'x') + "\"}}}";
  auto r = Decode<Pod>(big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(r.status().message(), HasSubstr("exceeds the limit"));
  EXPECT_FALSE(DecodeWatchEvent<Pod>(big).ok());
}

TEST(DecodeLimits, NullMeansAbsent) {
  auto p = Decode<Pod>(R"({"metadata":{"name":"p","labels":null,"creationTimestamp":null},
                           "spec":{"affinity":null,"containers":null}})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->metadata.labels.empty());
  EXPECT_FALSE(p->spec.affinity.has_value());
}

// How a Lease update keeps the fields stowage does not model: the new spec replaces the old one
// in place, every other member (finalizers, unknown fields, numbers) is written back.
TEST(OverlayObject, ReplacesAndAddsMembersKeepingTheRest) {
  auto out = OverlayObject(
      R"({"kind":"Lease","metadata":{"name":"l","finalizers":["f"],"x":1.5},"spec":{"a":1},)"
      R"("future":[true,null,"<"]})",
      R"({"spec":{"b":"c"},"status":{}})");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(
      *out,
      R"({"kind":"Lease","metadata":{"name":"l","finalizers":["f"],"x":1.5},"spec":{"b":"c"},)"
      R"("future":[true,null,"\u003c"],"status":{}})");
  EXPECT_THAT(OverlayObject("[1]", "{}").status().message(), HasSubstr("expected a JSON object"));
  EXPECT_THAT(OverlayObject("{}", "{").status().message(), HasSubstr("overlay: malformed JSON"));
}

TEST(DecodeStrings, ReadsAnArrayOfStringsOnly) {
  auto list = DecodeStrings(R"(["a","b"])");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(*list, ElementsAre("a", "b"));
  EXPECT_THAT(DecodeStrings("[1]").status().message(), HasSubstr("[0]: expected a string"));
  EXPECT_THAT(DecodeStrings(R"({"a":1})").status().message(), HasSubstr("expected an array"));
}

}  // namespace
}  // namespace stowage::api::decode_test
