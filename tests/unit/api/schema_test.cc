// The schema's tables and its JSON engine: every declared kind decodes from the golden object
// Go's own codec wrote (tests/fixtures/schema, scripts/generate/schema) with every declared
// field, and the protobuf dispatch reaches the member a field-number path names.
#include "pkg/api/schema.h"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/api/schema_generated.h"
#include "tests/testing/fixtures.h"

namespace stowage::api::schema::schema_test {
namespace {

// The value schemagen's golden writer derives from a JSON path (golden.go GoldenInt).
int64_t GoldenInt(std::string_view path) {
  uint32_t h = 2166136261u;
  for (unsigned char c : path) h = (h ^ c) * 16777619u;
  return int64_t{h % 100000} + 1;
}

// The time schemagen's golden writer derives from a JSON path (golden.go GoldenTime): GoldenInt
// seconds after the epoch, as metav1.Time (RFC 3339) or metav1.MicroTime (with microseconds)
// writes it. GoldenInt is at most 100000, so the day is the 1st or the 2nd.
std::string GoldenTime(std::string_view path, bool micro) {
  int64_t n = GoldenInt(path);
  char buf[40];
  std::snprintf(buf, sizeof buf, "1970-01-%02dT%02d:%02d:%02d%s", static_cast<int>(1 + n / 86400),
                static_cast<int>(n % 86400 / 3600), static_cast<int>(n % 3600 / 60),
                static_cast<int>(n % 60), micro ? ".000000Z" : "Z");
  return buf;
}

std::string Join(const std::string& prefix, std::string_view name) {
  if (name.empty()) return prefix;
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// A visitor that checks every kept value of a decoded golden object, and counts them.
class GoldenCheck {
 public:
  GoldenCheck(std::string path, int& checked) : path_(std::move(path)), checked_(checked) {}

  template <typename M>
  void Field(const Tag& tag, const M& m) {
    std::string path = Join(path_, tag.json);
    SCOPED_TRACE(path);
    type_ = tag.type;
    Check(path, m);
    ++checked_;
  }
  template <typename F>
  void Group(const Tag& tag, F&& f) {
    GoldenCheck in(Join(path_, tag.json), checked_);
    f(in);
  }
  template <typename C, typename F>
  void Each(const Tag& tag, const C& c, F&& f) {
    GoldenCheck in(Join(path_, tag.json), checked_);
    ASSERT_EQ(c.size(), 1u) << in.path_;
    f(in, c[0]);
  }
  // Golden objects set every option a struct reads fields of; the engines read the fields of the
  // first only (SchemaGolden.EveryVolumeSourceKeepsItsFields covers the others).
  void Present(std::span<const Tag>, const std::string&) {}
  template <typename F>
  void Option(const Tag& tag, const std::string& name, F&& f) {
    if (name == tag.json) Group(tag, f);
  }

 private:
  void Check(const std::string& path, const std::string& v) {
    if (type_ == Type::kTime || type_ == Type::kMicroTime) {
      EXPECT_EQ(v, GoldenTime(path, type_ == Type::kMicroTime));
    } else {
      EXPECT_EQ(v, path);
    }
  }
  void Check(const std::string& path, const Quantity& v) { EXPECT_EQ(v.Value(), GoldenInt(path)); }
  void Check(const std::string& path, int32_t v) { EXPECT_EQ(v, GoldenInt(path)); }
  void Check(const std::string& path, int64_t v) { EXPECT_EQ(v, GoldenInt(path)); }
  void Check(const std::string&, bool v) { EXPECT_TRUE(v); }
  void Check(const std::string& path, const StringMap& v) {
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(*v.Get(path), path);
  }
  void Check(const std::string& path, const ResourceList& v) {
    ASSERT_EQ(v.entries().size(), 1u);
    ASSERT_NE(v.Get(path), nullptr);
    EXPECT_EQ(v.Get(path)->Value(), GoldenInt(path));
  }
  void Check(const std::string& path, const IntOrString& v) {
    EXPECT_EQ(v.int_value, GoldenInt(path));
  }
  template <typename S>
  void Check(const std::string& path, const std::optional<S>& v) {
    ASSERT_TRUE(v.has_value());
    Check(path, *v);
  }
  template <typename S>
  void Check(const std::string& path, const std::vector<S>& v) {
    ASSERT_EQ(v.size(), 1u);
    Check(path, v[0]);
  }
  template <typename V>
  void Check(const std::string& path, const Map<V>& v) {  // one entry keyed by the path
    EXPECT_EQ(v.size(), 1u);
    const V* value = v.Get(path);
    EXPECT_NE(value, nullptr) << "keys: " << (v.empty() ? "" : v.entries()[0].first);
    if (value) Check(path, *value);
  }
  template <typename S>
  void Check(const std::string& path, const S& v) {  // a struct with its own table
    GoldenCheck in(path, checked_);
    VisitFields(in, v);
  }

  std::string path_;
  int& checked_;
  Type type_ = Type::kString;  // of the field being checked
};

// Decodes the golden JSON of kind T and checks it; returns the number of values checked.
template <typename T>
int CheckGolden(const std::string& json) {
  auto obj = Decode<T>(json);
  EXPECT_TRUE(obj.ok()) << obj.status();
  if (!obj.ok()) return 0;
  int checked = 0;
  GoldenCheck check("", checked);
  VisitFields(check, *obj);
  return checked;
}

template <typename T>
void ExpectGolden(int want_checked) {
  std::string name = std::string(KindName<T>());
  SCOPED_TRACE(name);
  EXPECT_EQ(CheckGolden<T>(stowage::testing::ReadFixture("schema/" + name + ".json")),
            want_checked);
}

TEST(SchemaGolden, EveryDeclaredFieldOfEveryKindComesThrough) {
  // The counts are the values each kind keeps, lists' elements and nested structs' fields
  // included; a field dropped from a declaration changes them.
  ExpectGolden<StorageClass>(24);
  ExpectGolden<CSINode>(23);
  ExpectGolden<CSIDriver>(22);
  ExpectGolden<PersistentVolume>(42);
  ExpectGolden<PersistentVolumeClaim>(31);
  ExpectGolden<CSIStorageCapacity>(27);
  ExpectGolden<VolumeAttachment>(21);
  ExpectGolden<PodDisruptionBudget>(31);
  ExpectGolden<Namespace>(19);
  ExpectGolden<Service>(20);
  ExpectGolden<ReplicaSet>(25);
  ExpectGolden<StatefulSet>(25);
  ExpectGolden<ReplicationController>(20);
  ExpectGolden<Lease>(25);
  ExpectGolden<ResourceSlice>(78);
  ExpectGolden<ResourceClaim>(94);
  ExpectGolden<ResourceClaimTemplate>(69);
  ExpectGolden<DeviceClass>(20);
  ExpectGolden<DeviceTaintRule>(25);
  ExpectGolden<TokenReview>(26);
  ExpectGolden<SubjectAccessReview>(27);
  ExpectGolden<ConfigMap>(19);
  ExpectGolden<Pod>(225);
  ExpectGolden<Node>(34);
}

// The golden volume sets every source whose fields the Volume keeps; the first of them in
// VolumeSource's order names it.
TEST(SchemaGolden, AVolumeNamesItsSource) {
  auto pod = Decode<Pod>(stowage::testing::ReadFixture("schema/Pod.json"));
  ASSERT_TRUE(pod.ok()) << pod.status();
  ASSERT_EQ(pod->spec.volumes.size(), 1u);
  EXPECT_EQ(pod->spec.volumes[0].source, "gcePersistentDisk");
  auto one = Decode<Pod>(R"({"spec":{"volumes":[{"name":"v","configMap":{"name":"c"}},
      {"name":"w","persistentVolumeClaim":{"claimName":"data","readOnly":true}}]}})");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->spec.volumes[0].source, "configMap");
  EXPECT_EQ(one->spec.volumes[1].source, "persistentVolumeClaim");
  EXPECT_EQ(one->spec.volumes[1].claim_name, "data");
  EXPECT_TRUE(one->spec.volumes[1].claim_read_only);
}

// One volume per source whose fields the Volume keeps (the golden volume names only the first).
TEST(SchemaGolden, EveryVolumeSourceKeepsItsFields) {
  auto pod = Decode<Pod>(R"({"spec":{"volumes":[
      {"name":"a","gcePersistentDisk":{"pdName":"pd","readOnly":true}},
      {"name":"b","awsElasticBlockStore":{"volumeID":"vol"}},
      {"name":"c","iscsi":{"targetPortal":"tp","iqn":"iqn","lun":7,"readOnly":true}},
      {"name":"d","rbd":{"monitors":["m1","m2"],"image":"img","pool":"p","readOnly":true}},
      {"name":"e","csi":{"driver":"drv"}},
      {"name":"f","image":{"reference":"ref"}},
      {"name":"g","persistentVolumeClaim":{"claimName":"c"},"csi":{"driver":"ignored"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  const auto& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].source, "gcePersistentDisk");
  EXPECT_EQ(v[0].gce_pd_name, "pd");
  EXPECT_TRUE(v[0].gce_read_only);
  EXPECT_EQ(v[1].aws_volume_id, "vol");
  EXPECT_EQ(v[2].iscsi_target_portal, "tp");
  EXPECT_EQ(v[2].iscsi_iqn, "iqn");
  EXPECT_EQ(v[2].iscsi_lun, 7);
  EXPECT_TRUE(v[2].iscsi_read_only);
  EXPECT_EQ(v[3].rbd_monitors, (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(v[3].rbd_image, "img");
  EXPECT_EQ(v[3].rbd_pool, "p");
  EXPECT_TRUE(v[3].rbd_read_only);
  EXPECT_EQ(v[4].csi_driver, "drv");
  EXPECT_EQ(v[5].image_reference, "ref");
  // Two sources (which validation refuses): the first names it, the other's fields are not read.
  EXPECT_EQ(v[6].source, "persistentVolumeClaim");
  EXPECT_EQ(v[6].csi_driver, "");
}

// The in-tree sources NodeVolumeLimits translates to CSI, inline and in PersistentVolumes.
TEST(SchemaGolden, InTreeSourcesKeepTheirFields) {
  auto pod = Decode<Pod>(R"({"spec":{"volumes":[
      {"name":"a","cinder":{"volumeID":"c"}},
      {"name":"b","azureDisk":{"diskName":"d","diskURI":"uri","kind":"Managed"}},
      {"name":"c","portworxVolume":{"volumeID":"px"}},
      {"name":"d","azureDisk":{"diskName":"d","diskURI":"uri2"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  const auto& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].cinder_volume_id, "c");
  EXPECT_EQ(v[1].source, "azureDisk");
  EXPECT_EQ(v[1].azure_disk_uri, "uri");
  EXPECT_EQ(v[1].azure_disk_kind, "Managed");
  EXPECT_EQ(v[2].portworx_volume_id, "px");
  EXPECT_EQ(v[3].azure_disk_kind, std::nullopt);
  for (const char* json : {R"({"spec":{"gcePersistentDisk":{"pdName":"pd"}}})",
                           R"({"spec":{"awsElasticBlockStore":{"volumeID":"vol"}}})",
                           R"({"spec":{"csi":{"driver":"drv","volumeHandle":"h"}}})",
                           R"({"spec":{"hostPath":{"path":"/p"}}})"}) {
    auto pv = Decode<PersistentVolume>(json);
    ASSERT_TRUE(pv.ok()) << pv.status();
    if (pv->source == "gcePersistentDisk") {
      EXPECT_EQ(pv->gce_pd_name, "pd");
    } else if (pv->source == "awsElasticBlockStore") {
      EXPECT_EQ(pv->aws_volume_id, "vol");
    } else if (pv->source == "csi") {
      EXPECT_EQ(pv->csi_driver, "drv");
      EXPECT_EQ(pv->csi_volume_handle, "h");
    } else {
      EXPECT_EQ(pv->source, "hostPath") << json;
    }
  }
}

TEST(SchemaGolden, AWrongMapKeyIsCaught) {
  std::string json = stowage::testing::ReadFixture("schema/ResourceSlice.json");
  auto at = json.find("\"spec.devices.attributes\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 25, "\"spec.devices.attributeX\"");
  EXPECT_NONFATAL_FAILURE(CheckGolden<ResourceSlice>(json), "attributeX");
}

TEST(SchemaGolden, AMissingFieldIsCaught) {
  std::string json = stowage::testing::ReadFixture("schema/StorageClass.json");
  auto at = json.find("\"provisioner\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 13, "\"provisionerX\"");
  EXPECT_NONFATAL_FAILURE(CheckGolden<StorageClass>(json), "provisioner");
}

// Follows a path of protobuf field numbers through VisitNumber and records the member reached.
class Follow {
 public:
  explicit Follow(std::span<const uint32_t> rest) : rest_(rest) {}
  const void* hit() const { return kept_ ? hit_ : nullptr; }

  template <typename M>
  void Field(const Tag& tag, M& m) {
    hit_ = &m;
    last_ = tag;
    if (!rest_.empty()) kept_ = false;  // the path goes on below a kept value
  }
  template <typename F>
  void Group(const Tag&, F&& f) {
    Descend([&](uint32_t n) { return f(*this, n); });
  }
  template <typename C, typename F>
  void Each(const Tag&, C& c, F&& f) {
    auto& e = c.emplace_back();
    Descend([&](uint32_t n) { return f(*this, e, n); });
  }
  // A one-of's option: its name is no member; its fields are reached through it.
  void Present(const Tag&, std::string&) {}
  template <typename F>
  void Option(const Tag&, std::string&, F&& f) {
    Descend([&](uint32_t n) { return f(*this, n); });
  }
  const Tag& last() const { return last_; }

 private:
  template <typename G>
  void Descend(G&& g) {
    if (rest_.empty()) {
      kept_ = false;
      return;
    }
    uint32_t n = rest_[0];
    rest_ = rest_.subspan(1);
    kept_ = kept_ && g(n);
  }

  std::span<const uint32_t> rest_;
  const void* hit_ = nullptr;
  Tag last_{};
  bool kept_ = true;
};

template <typename T>
const void* FollowNumbers(T& obj, std::vector<uint32_t> path, Tag* last = nullptr) {
  Follow f(std::span<const uint32_t>(path).subspan(1));
  if (!VisitNumber(f, obj, path[0])) return nullptr;
  if (last) *last = f.last();
  return f.hit();
}

TEST(SchemaNumbers, ReachTheMemberThroughNestedAndEmbeddedMessages) {
  PersistentVolume pv;
  Tag last{};
  // spec (2) > persistentVolumeSource, inline in JSON (2) > csi (22) > driver (1).
  EXPECT_EQ(FollowNumbers(pv, {2, 2, 22, 1}, &last), &pv.csi_driver);
  EXPECT_EQ(last.json, "driver");
  EXPECT_EQ(FollowNumbers(pv, {2, 2, 22, 2}), &pv.csi_volume_handle);
  EXPECT_EQ(FollowNumbers(pv, {2, 2, 1, 1}), &pv.gce_pd_name);  // gcePersistentDisk.pdName
  EXPECT_EQ(FollowNumbers(pv, {2, 2, 16, 6}), &pv.azure_disk_kind);
  EXPECT_EQ(FollowNumbers(pv, {2, 9, 1}), &pv.node_affinity);
  EXPECT_EQ(FollowNumbers(pv, {3, 1}), &pv.phase);
  EXPECT_EQ(FollowNumbers(pv, {2, 2, 22, 3}), nullptr);  // fsType: not kept
  EXPECT_EQ(FollowNumbers(pv, {4}), nullptr);
  EXPECT_EQ(FollowNumbers(pv, {2}), nullptr);  // spec itself is no member

  StorageClass sc;
  const void* hit = FollowNumbers(sc, {8, 1}, &last);
  ASSERT_EQ(sc.allowed_topologies.size(), 1u);  // the list element the path entered
  EXPECT_EQ(hit, &sc.allowed_topologies[0]);
  EXPECT_EQ(last.type, Type::kMessage);
  EXPECT_TRUE(last.list);

  CSIDriver d;
  EXPECT_EQ(FollowNumbers(d, {2, 7}, &last), &d.requires_republish);
  // Upstream's Go tag says "bytes", but generated.pb.go writes a varint.
  EXPECT_EQ(FollowNumbers(d, {2, 4}, &last), &d.storage_capacity);
  EXPECT_EQ(last.wire, Wire::kVarint);
}

TEST(SchemaNumbers, ReachMapsAndFlattenedLists) {
  Device d;
  Tag last{};
  EXPECT_EQ(FollowNumbers(d, {2}, &last), &d.attributes);  // the map itself: entries are its own
  EXPECT_TRUE(last.map);
  EXPECT_FALSE(last.list);
  EXPECT_EQ(last.type, Type::kMessage);

  ExactDeviceRequest req;
  // selectors (2) > cel (1) > expression (1), flattened into a list of strings.
  const void* hit = FollowNumbers(req, {2, 1, 1}, &last);
  ASSERT_EQ(req.selectors.size(), 1u);
  EXPECT_EQ(hit, &req.selectors[0]);
  EXPECT_EQ(last.json, "expression");

  PodDisruptionBudget pdb;
  EXPECT_EQ(FollowNumbers(pdb, {3, 2}, &last), &pdb.disrupted_pods);
  EXPECT_EQ(last.type, Type::kTime);
  EXPECT_TRUE(last.map);
}

TEST(SchemaJson, MapsSkipNullsKeepTheLastDuplicateAndNameBadValues) {
  auto slice = Decode<ResourceSlice>(R"({"metadata":{"name":"s"},"spec":{"devices":[{"name":"d",
      "attributes":{"b":{"int":2},"a":{"string":"x"},"n":null,"b":{"int":3}},
      "capacity":{"memory":{"value":"16Gi"}}}]}})");
  ASSERT_TRUE(slice.ok()) << slice.status();
  const Device& d = slice->devices.at(0);
  ASSERT_EQ(d.attributes.size(), 2u);
  EXPECT_EQ(d.attributes.entries()[0].first, "a");  // sorted
  EXPECT_EQ(*d.attributes.Get("a")->string_value, "x");
  EXPECT_EQ(*d.attributes.Get("b")->int_value, 3);
  EXPECT_EQ(d.capacity.Get("memory")->value.Value(), int64_t{16} << 30);

  auto bad = Decode<ResourceSlice>(
      R"({"metadata":{"name":"s"},"spec":{"devices":[{"capacity":{"memory":{"value":"16Qi"}}}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("spec.devices[0].capacity.memory.value"));
  auto not_object = Decode<ResourceSlice>(R"({"spec":{"devices":[{"attributes":{"a":"x"}}]}})");
  ASSERT_FALSE(not_object.ok());
  EXPECT_THAT(std::string(not_object.status().message()),
              ::testing::HasSubstr("spec.devices[0].attributes.a: expected an object"));
}

TEST(SchemaTags, CarryUpstreamNamesNumbersAndTypes) {
  using T = PersistentVolumeTags;
  EXPECT_EQ(T::kSpecPersistentVolumeSource.json, "");  // inline in JSON, a message in protobuf
  EXPECT_EQ(T::kSpecPersistentVolumeSource.number, 2u);
  EXPECT_EQ(T::kSpecCapacity.type, Type::kResourceList);
  EXPECT_EQ(T::kSpecAccessModes.type, Type::kString);
  EXPECT_TRUE(T::kSpecAccessModes.list);
  EXPECT_EQ(CSINodeDriverTags::kAllocatableCount.wire, Wire::kVarint);
  EXPECT_EQ(CSINodeDriverTags::kAllocatableCount.type, Type::kInt32);
}

// The compile-time check the generated static_asserts make.
static_assert(Fits<std::optional<std::string>, Type::kString, false, 0, void>());
static_assert(!Fits<int32_t, Type::kString, false, 0, void>());
static_assert(!Fits<std::string, Type::kString, true, 0, void>());
static_assert(
    Fits<std::vector<std::vector<NodeSelector>>, Type::kMessage, true, 1, NodeSelector>());
static_assert(!Fits<std::vector<NodeSelector>, Type::kMessage, true, 1, NodeSelector>());
static_assert(!Fits<ObjectMeta, Type::kMessage, false, 0, NodeSelector>());
static_assert(Fits<Map<DeviceAttribute>, Type::kMessage, false, 0, DeviceAttribute, true>());
static_assert(!Fits<Map<DeviceAttribute>, Type::kMessage, false, 0, DeviceAttribute>());
static_assert(
    !Fits<std::vector<DeviceAttribute>, Type::kMessage, false, 0, DeviceAttribute, true>());
static_assert(Fits<Map<std::string>, Type::kTime, false, 0, void, true>());
static_assert(!Fits<StringMap, Type::kTime, false, 0, void, true>());
// A map whose values are lists (a user's extra).
static_assert(Fits<Map<std::vector<std::string>>, Type::kString, true, 0, void, true>());
static_assert(!Fits<Map<std::string>, Type::kString, true, 0, void, true>());
static_assert(!Fits<std::vector<std::string>, Type::kString, true, 0, void, true>());

}  // namespace
}  // namespace stowage::api::schema::schema_test
