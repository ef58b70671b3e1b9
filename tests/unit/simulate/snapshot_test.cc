// The snapshot reader of `stowage simulate`: Lists and multi-document YAML, admission defaults
// for pods, the what-if changes, and hostile files (malformed, truncated, huge, alias bombs, deep
// nesting, not regular files), each refused with the file and the object named.
#include "pkg/simulate/snapshot.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace stowage::simulate::snapshot_test {
namespace {

using json = nlohmann::json;

const char kNodes[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, uid: u1, creationTimestamp: "2026-01-01T00:00:00Z",
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs, controller: true}]}
  spec: {nodeName: n1, schedulerName: default-scheduler, priority: 0,
    containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: lone, namespace: shop, uid: u2}
  spec: {nodeName: n1, priority: 0, containers: [{name: c, image: x}]}
  status: {phase: Running}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
)";

json Find(const Snapshot& s, std::string_view kind, std::string_view name) {
  for (const std::string& text : s.Objects()) {
    json o = json::parse(text);
    if (o["kind"] == kind && o["metadata"]["name"] == name) return o;
  }
  return nullptr;
}

std::string Error(std::string_view text) {
  Snapshot s;
  Status st = s.Parse(text, "snap.yaml");
  EXPECT_FALSE(st.ok());
  return std::string(st.message());
}

TEST(SnapshotTest, ReadsListsAndLeavesOutKindsNoPluginReads) {
  Snapshot s;
  ASSERT_TRUE(s.Parse(kNodes, "snap.yaml").ok());
  EXPECT_EQ(s.nodes(), 2u);
  EXPECT_EQ(s.Objects().size(), 4u);
  ASSERT_EQ(s.skipped().size(), 1u);
  EXPECT_EQ(s.skipped()[0].first, "Deployment");
  EXPECT_TRUE(s.PendingPods().empty());
}

TEST(SnapshotTest, AdmitsPodsAsTheApiServerWould) {
  Snapshot s;
  ASSERT_TRUE(s.Parse(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: everyone}
value: 7
globalDefault: true
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  priorityClassName: high
  containers: [{name: c, image: x, resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c, image: x}]}
)",
                      "pods.yaml")
                  .ok());
  json a = Find(s, "Pod", "a");
  EXPECT_EQ(a["metadata"]["namespace"], "default");
  EXPECT_FALSE(a["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(a["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(a["spec"]["priority"], 1000);
  EXPECT_EQ(a["spec"]["preemptionPolicy"], "Never");
  EXPECT_EQ(a["status"]["phase"], "Pending");
  // Requests default to limits where unset; a request given is kept.
  EXPECT_EQ(a["spec"]["containers"][0]["resources"]["requests"]["cpu"], "100m");
  EXPECT_EQ(a["spec"]["containers"][0]["resources"]["requests"]["memory"], "1Gi");
  json b = Find(s, "Pod", "b");
  EXPECT_EQ(b["spec"]["priority"], 7);  // the global default
  // Created in file order, a second apart.
  EXPECT_LT(a["metadata"]["creationTimestamp"].get<std::string>(),
            b["metadata"]["creationTimestamp"].get<std::string>());
  EXPECT_EQ(s.PendingPods(), (std::vector<std::string>{"default/a", "default/b"}));
}

TEST(SnapshotTest, RemoveCordonAndDrainActAsTheClusterWould) {
  Snapshot removed;
  ASSERT_TRUE(removed.Parse(kNodes, "snap.yaml").ok());
  ASSERT_TRUE(removed.Remove("node/n1").ok());
  EXPECT_TRUE(Find(removed, "Node", "n1").is_null());
  // The ReplicaSet's pod comes back pending under a new UID; the lone pod is gone.
  json web = Find(removed, "Pod", "web-1");
  ASSERT_FALSE(web.is_null());
  EXPECT_FALSE(web["spec"].contains("nodeName"));
  EXPECT_NE(web["metadata"]["uid"], "u1");
  EXPECT_TRUE(Find(removed, "Pod", "lone").is_null());
  EXPECT_EQ(removed.PendingPods(), (std::vector<std::string>{"shop/web-1"}));
  ASSERT_EQ(removed.displaced().size(), 2u);

  Snapshot drained;
  ASSERT_TRUE(drained.Parse(kNodes, "snap.yaml").ok());
  ASSERT_TRUE(drained.Drain("n1").ok());
  json n1 = Find(drained, "Node", "n1");
  EXPECT_EQ(n1["spec"]["unschedulable"], true);
  EXPECT_EQ(n1["spec"]["taints"][0]["key"], "node.kubernetes.io/unschedulable");
  EXPECT_EQ(drained.PendingPods(), (std::vector<std::string>{"shop/web-1"}));

  Snapshot s;
  ASSERT_TRUE(s.Parse(kNodes, "snap.yaml").ok());
  EXPECT_EQ(s.Remove("node/nope").message(), "--remove node/nope: no such node");
  EXPECT_EQ(s.Remove("pods/x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Cordon("nope").code(), StatusCode::kNotFound);
  ASSERT_TRUE(s.Remove("pod/shop/lone").ok());
  EXPECT_TRUE(Find(s, "Pod", "lone").is_null());
}

TEST(SnapshotTest, BadObjectsAreNamedByFileDocumentAndItem) {
  EXPECT_EQ(Error("apiVersion: v1\nkind: List\nitems:\n- {kind: Node, metadata: {name: a}}\n- "
                  "{kind: Node, metadata: {name: a}}\n"),
            "snap.yaml: document 1, item 2 (Node a): given twice");
  EXPECT_EQ(Error("kind: Pod\nmetadata: {}\n"), "snap.yaml: document 1 (Pod): no metadata.name");
  EXPECT_EQ(Error("metadata: {name: x}\n"), "snap.yaml: document 1: no kind");
  EXPECT_EQ(Error("---\nkind: Node\nmetadata: {name: a}\n---\n- 1\n"),
            "snap.yaml: document 2: not an object");
  const std::string wrong_type = Error(
      "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: "
      "{cpu: lots}}}]}\n");
  EXPECT_NE(wrong_type.find("snap.yaml: document 1 (Pod default/p): "), std::string::npos)
      << wrong_type;
  EXPECT_NE(Error("kind: Pod\nmetadata: {name: p}\nspec: {priorityClassName: gold}\n")
                .find("no PriorityClass \"gold\""),
            std::string::npos);
}

TEST(SnapshotTest, MalformedTruncatedAndHostileTextIsRefused) {
  EXPECT_NE(Error("kind: Node\nmetadata: {name: a\n")
                .find("snap.yaml (the document from line 1): invalid YAML"),
            std::string::npos);
  EXPECT_NE(Error("kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: [\n")
                .find("snap.yaml (the document from line 3): invalid YAML"),
            std::string::npos);
  // yaml-cpp's LoadAll looped on this text; documents are cut at their markers and loaded alone.
  Snapshot looped;
  const Status ended = looped.Parse(",n!.", "snap.yaml");
  EXPECT_TRUE(!ended.ok() || looped.Objects().empty()) << ended;
  EXPECT_NE(Error("{\"kind\": \"Node\", \"metadata\": {\"name\": ").find("snap.yaml: invalid JSON"),
            std::string::npos);
  // A NUL or another control character made yaml-cpp's LoadAll loop without end (the fuzzer's find,
  // kept in tests/fuzz/regressions/snapshot/); bytes that are not UTF-8 are refused as go-yaml
  // does.
  EXPECT_EQ(Error(std::string(",I\0oG ", 6)),
            "snap.yaml: invalid YAML: line 1: a control character");
  EXPECT_EQ(Error("!Ag,\x06\x06\x7f"), "snap.yaml: invalid YAML: line 1: a control character");
  EXPECT_EQ(Error("kind: Node\nmetadata: {name: \"\xff\"}\n"),
            "snap.yaml: invalid YAML: line 2: bytes that are not UTF-8");
  // A billion laughs: nine levels of nine aliases is 387 million nodes once expanded.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 9; ++j) bomb += ", " + prev;
    bomb += "]\n";
  }
  bomb += "kind: Node\nmetadata: {name: n}\n";
  Snapshot s;
  Status st = s.Parse(bomb, "bomb.yaml");
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted) << st;
  EXPECT_NE(st.message().find("bomb.yaml: document 1: more than"), std::string::npos) << st;
  // Nesting deeper than 100 levels.
  std::string deep =
      "kind: Node\nmetadata: {name: n}\nx: " + std::string(200, '[') + std::string(200, ']') + "\n";
  EXPECT_NE(Error(deep).find("nested"), std::string::npos) << Error(deep);
}

TEST(SnapshotTest, FilesAreReadBoundedAndOnlyIfRegular) {
  Snapshot s;
  Status st = s.Read("/dev/zero");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/dev/zero"), std::string::npos) << st;
  EXPECT_NE(s.Read("/nonexistent/snap.yaml").message().find("/nonexistent/snap.yaml"),
            std::string::npos);
  char path[] = "/tmp/stowage-snapshot-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    for (int i = 0; i < 2000; ++i) f << "# padding line to grow the file past the limit\n";
  }
  st = s.Read(path, 4096);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find(path), std::string::npos) << st;
  std::remove(path);
}

}  // namespace
}  // namespace stowage::simulate::snapshot_test
