// The schema's tables and its JSON engine: every declared kind decodes from the golden object
// Go's own codec wrote (tests/fixtures/schema, scripts/generate/schema) with every declared
// field, and the protobuf dispatch reaches the member a field-number path names.
#include "pkg/api/schema.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cctype>
#include <span>
#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/api/schema_generated.h"
#include "tests/testing/fixtures.h"

namespace stowage::api::schema {
namespace {

// The value schemagen's golden writer derives from a JSON path (golden.go GoldenInt).
int64_t GoldenInt(std::string_view path) {
  uint32_t h = 2166136261u;
  for (unsigned char c : path) h = (h ^ c) * 16777619u;
  return int64_t{h % 100000} + 1;
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

 private:
  void Check(const std::string& path, const std::string& v) { EXPECT_EQ(v, path); }
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
  // The structs read by hand (golden.go fillExtern).
  void Check(const std::string& path, const ObjectMeta& v) {
    std::string lower = path;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(v.name, lower);
    ASSERT_TRUE(v.labels.Has(path));
    EXPECT_EQ(*v.labels.Get(path), path);
  }
  void Check(const std::string& path, const LabelSelector& v) {
    ASSERT_TRUE(v.match_labels.Has(path));
    EXPECT_EQ(*v.match_labels.Get(path), path);
  }
  void Check(const std::string& path, const NodeSelector& v) {
    ASSERT_EQ(v.terms.size(), 1u);
    ASSERT_EQ(v.terms[0].match_expressions.size(), 1u);
    EXPECT_EQ(v.terms[0].match_expressions[0].key, path);
    EXPECT_EQ(v.terms[0].match_expressions[0].op, "In");
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
  template <typename S>
  void Check(const std::string& path, const S& v) {  // a struct with its own table
    GoldenCheck in(path, checked_);
    VisitFields(in, v);
  }

  std::string path_;
  int& checked_;
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
  ExpectGolden<StorageClass>(7);
  ExpectGolden<CSINode>(6);
  ExpectGolden<CSIDriver>(4);
  ExpectGolden<PersistentVolume>(14);
  ExpectGolden<PersistentVolumeClaim>(8);
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

}  // namespace
}  // namespace stowage::api::schema
