// The protobuf decoders against the JSON decoder: every object of tests/fixtures/proto was
// written by Go's own codecs both as JSON and as protobuf (tests/cluster/tools/protofixtures), and
// both decodings must give equal structs. Then the watch stream split across reads, and malformed
// input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pkg/api/decode.h"
#include "pkg/api/schema_generated.h"
#include "pkg/client/protobuf_decode.h"
#include "pkg/client/protobuf_wire.h"
#include "tests/testing/fixtures.h"

namespace stowage::client::protobuf_golden_test {
namespace {

using testing::ReadFixture;

template <typename T>
void ExpectSameObject(const std::string& name) {
  SCOPED_TRACE(name);
  auto from_json = api::Decode<T>(ReadFixture("proto/" + name + ".json"));
  auto from_proto = DecodeProto<T>(ReadFixture("proto/" + name + ".pb"));
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  ASSERT_TRUE(from_proto.ok()) << from_proto.status().ToString();
  EXPECT_TRUE(*from_json == *from_proto);
  EXPECT_FALSE(from_proto->metadata.name.empty());
}

TEST(ProtobufGoldenTest, PodsDecodeAsFromJson) {
  for (const char* name : {"pod-captured", "pod-rich", "pod-minimal"})
    ExpectSameObject<api::Pod>(name);
}

TEST(ProtobufGoldenTest, NodesDecodeAsFromJson) {
  for (const char* name : {"node-captured", "node-rich", "node-minimal"}) {
    ExpectSameObject<api::Node>(name);
  }
}

// The rich fixtures exercise what they claim to, so equality above is not between empty objects.
TEST(ProtobufGoldenTest, RichFixturesCarryTheFieldsUnderTest) {
  auto pod = DecodeProto<api::Pod>(ReadFixture("proto/pod-rich.pb"));
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_EQ(pod->metadata.deletion_timestamp, "2026-11-26T10:22:00Z");
  EXPECT_EQ(pod->metadata.creation_timestamp, "2026-11-26T10:20:30Z");
  EXPECT_FALSE(pod->metadata.annotations.Has("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_TRUE(pod->metadata.owner_references[0].controller);
  EXPECT_EQ(pod->spec.priority, -5);
  EXPECT_EQ(pod->spec.volumes.size(), 13u);
  EXPECT_EQ(pod->spec.volumes[4].iscsi_lun, 4);
  EXPECT_EQ(pod->spec.init_containers[1].restart_policy, "Always");
  EXPECT_EQ(pod->spec.containers[0].ports[2].protocol, "TCP");
  EXPECT_EQ(pod->spec.affinity->pod_affinity->preferred[0].term.mismatch_label_keys[0], "tenant");
  EXPECT_EQ(pod->spec.topology_spread_constraints[0].min_domains, 3);
  EXPECT_EQ(pod->spec.tolerations[3].toleration_seconds, 0);
  EXPECT_EQ(pod->status.conditions[0].observed_generation, 3);
  EXPECT_EQ(pod->status.nominated_node_name, "node-9");
  EXPECT_TRUE(pod->status.container_statuses[1].resources.has_value());
  EXPECT_FALSE(pod->status.container_statuses[1].resources->requests.has_value());
  auto node = DecodeProto<api::Node>(ReadFixture("proto/node-rich.pb"));
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->status.allocatable.Get("cpu")->MilliValue(), 3500);
  EXPECT_EQ(node->status.images[0].size_bytes, 187654321);
  EXPECT_EQ(node->status.conditions[0].type, "Ready");
}

// Every kind of the schema, with every declared field set, as Go's JSON and protobuf codecs write
// it (tests/fixtures/schema, scripts/generate/schema): both engines give the same object.
template <typename T>
void ExpectSameGolden() {
  const std::string name(api::KindName<T>());
  SCOPED_TRACE(name);
  auto from_json = api::Decode<T>(ReadFixture("schema/" + name + ".json"));
  auto from_proto = DecodeProto<T>(ReadFixture("schema/" + name + ".pb"));
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  ASSERT_TRUE(from_proto.ok()) << from_proto.status().ToString();
  EXPECT_TRUE(*from_json == *from_proto);
  EXPECT_EQ(from_proto->metadata.name, "metadata.name");
}

TEST(ProtobufGoldenTest, EveryKindDecodesAsFromJson) {
#define STOWAGE_EXPECT_SAME_GOLDEN(T) ExpectSameGolden<api::T>();
  STOWAGE_SCHEMA_KINDS(STOWAGE_EXPECT_SAME_GOLDEN)
#undef STOWAGE_EXPECT_SAME_GOLDEN
}

template <typename T>
void ExpectSameList(const std::string& name) {
  auto from_json = api::DecodeList<T>(ReadFixture("proto/" + name + ".json"));
  auto from_proto = DecodeProtoList<T>(ReadFixture("proto/" + name + ".pb"));
  ASSERT_TRUE(from_json.ok()) << from_json.status().ToString();
  ASSERT_TRUE(from_proto.ok()) << from_proto.status().ToString();
  EXPECT_EQ(from_proto->resource_version, from_json->resource_version);
  EXPECT_EQ(from_proto->continue_token, from_json->continue_token);
  ASSERT_EQ(from_proto->items.size(), from_json->items.size());
  ASSERT_GE(from_proto->items.size(), 2u);
  for (size_t i = 0; i < from_json->items.size(); ++i) {
    EXPECT_TRUE(*from_json->items[i] == *from_proto->items[i]) << name << " item " << i;
  }
}

TEST(ProtobufGoldenTest, ListsDecodeAsFromJson) {
  ExpectSameList<api::Pod>("podlist");
  ExpectSameList<api::Node>("nodelist");
  auto list = DecodeProtoList<api::Pod>(ReadFixture("proto/podlist.pb"));
  EXPECT_EQ(list->continue_token, "token-1");
}

// Frames fed in pieces of every size from one byte up decode to the events of the JSON lines.
TEST(ProtobufGoldenTest, WatchStreamSplitAcrossReads) {
  std::vector<api::WatchEvent<api::Pod>> want;
  std::string lines = ReadFixture("proto/watch-pods.jsonl");
  for (size_t pos = 0; pos < lines.size();) {
    size_t end = lines.find('\n', pos);
    auto ev = api::DecodeWatchEvent<api::Pod>(std::string_view(lines).substr(pos, end - pos));
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    want.push_back(std::move(*ev));
    pos = end + 1;
  }
  ASSERT_GE(want.size(), 10u);
  const std::string stream = ReadFixture("proto/watch-pods.pb");
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, size_t{1000}, stream.size()}) {
    SCOPED_TRACE(chunk);
    ProtoFrameSplitter splitter(api::kMaxObjectBytes);
    size_t n = 0;
    for (size_t pos = 0; pos < stream.size(); pos += chunk) {
      Status st = splitter.Feed(std::string_view(stream).substr(pos, chunk), [&](auto frame) {
        auto ev = DecodeProtoWatchEvent<api::Pod>(frame);
        EXPECT_TRUE(ev.ok()) << ev.status().ToString();
        if (!ev.ok() || n >= want.size()) return false;
        const auto& w = want[n++];
        EXPECT_EQ(ev->type, w.type);
        EXPECT_EQ(ev->resource_version, w.resource_version);
        EXPECT_EQ(ev->object == nullptr, w.object == nullptr);
        if (ev->object && w.object) {
          EXPECT_TRUE(*ev->object == *w.object) << "event " << n;
        }
        EXPECT_EQ(ev->error.code, w.error.code);
        EXPECT_EQ(ev->error.reason, w.error.reason);
        EXPECT_EQ(ev->error.message, w.error.message);
        return true;
      });
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    EXPECT_EQ(n, want.size());
    EXPECT_EQ(splitter.pending(), 0u);
  }
  EXPECT_EQ(want.back().type, api::WatchEventType::kError);
  EXPECT_EQ(want.back().error.code, 410);
}

// --- malformed input ----------------------------------------------------------------------

void Put(std::string& out, uint32_t field, std::string_view bytes) {
  out.push_back(static_cast<char>(field << 3 | 2));
  out.push_back(static_cast<char>(bytes.size()));  // the tests' messages stay under 128 bytes
  out.append(bytes);
}

std::string Envelope(std::string_view kind, std::string_view raw) {
  std::string type_meta, out("k8s\0", 4);
  Put(type_meta, 1, "v1");
  Put(type_meta, 2, kind);
  Put(out, 1, type_meta);
  Put(out, 2, raw);
  return out;
}

TEST(ProtobufDecodeTest, TruncatedObjectNamesTheField) {
  const std::string pod = ReadFixture("proto/pod-rich.pb");
  auto got = DecodeProto<api::Pod>(pod.substr(0, pod.size() / 2));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("field 2: length"), std::string::npos)
      << got.status().ToString();
  // Cut inside the object itself, the error names the object's field.
  std::string raw;
  Put(raw, 1, std::string("\x0a\x01", 2));  // metadata.name says one byte, none follow
  got = DecodeProto<api::Pod>(Envelope("Pod", raw));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("Pod: field 1.1: length 1 runs past"), std::string::npos)
      << got.status().ToString();
}

TEST(ProtobufDecodeTest, BadMagicAndWrongKindAreRefused) {
  std::string pod = ReadFixture("proto/pod-rich.pb");
  auto got = DecodeProto<api::Pod>(ReadFixture("proto/pod-rich.json"));
  EXPECT_NE(got.status().message().find("bad magic"), std::string::npos);
  got = DecodeProto<api::Pod>(ReadFixture("proto/node-rich.pb"));
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("holds a \"Node\""), std::string::npos);
  auto list = DecodeProtoList<api::Pod>(pod);
  EXPECT_NE(list.status().message().find("PodList"), std::string::npos);
}

// Go writes a map's entries in one run, which the engine reads ahead; entries that come again
// after other fields (valid protobuf) are merged in, the later value of a key winning.
TEST(ProtobufDecodeTest, MapEntriesSplitByOtherFieldsAreMerged) {
  auto entry = [](std::string_view k, std::string_view v) {
    std::string e;
    Put(e, 1, k);
    Put(e, 2, v);
    return e;
  };
  std::string meta;
  Put(meta, 1, "n");
  Put(meta, 11, entry("a", "1"));
  Put(meta, 11, entry("b", "2"));
  Put(meta, 5, "uid-1");
  Put(meta, 12, entry("note", "x"));
  Put(meta, 11, entry("a", "3"));
  Put(meta, 11, entry("c", "4"));
  std::string node;
  Put(node, 1, meta);
  auto n = DecodeProto<api::Node>(Envelope("Node", node));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->metadata.uid, "uid-1");
  ASSERT_EQ(n->metadata.labels.size(), 3u);
  EXPECT_EQ(*n->metadata.labels.Get("a"), "3");
  EXPECT_EQ(*n->metadata.labels.Get("b"), "2");
  EXPECT_EQ(*n->metadata.labels.Get("c"), "4");
  EXPECT_EQ(*n->metadata.annotations.Get("note"), "x");
}

TEST(ProtobufDecodeTest, WrongWireTypeAndBadQuantityNameTheField) {
  auto got = DecodeProto<api::Pod>(Envelope("Pod", std::string("\x10\x01", 2)));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "Pod: field 2: expected a length-delimited field");
  // allocatable {key "cpu", value Quantity{"1x"}} in a Node named n.
  std::string meta, quantity, entry, status, node;
  Put(meta, 1, "n");
  Put(quantity, 1, "1x");
  Put(entry, 1, "cpu");
  Put(entry, 2, quantity);
  Put(status, 2, entry);
  Put(node, 1, meta);
  Put(node, 3, status);
  auto n = DecodeProto<api::Node>(Envelope("Node", node));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("Node n: field 3.2[0].2: cpu: "), std::string::npos)
      << n.status().ToString();
}

// creationTimestamp {seconds} of a Pod named p, as varint bytes.
std::string PodCreatedAt(std::string_view seconds_varint) {
  std::string time("\x08", 1), meta, pod;
  time.append(seconds_varint);
  Put(meta, 1, "p");
  Put(meta, 8, time);
  Put(pod, 1, meta);
  return Envelope("Pod", pod);
}

TEST(ProtobufDecodeTest, TimesAreWrittenAsJsonWritesThemWithinFourDigitYears) {
  // 16725225600 s: 2500-01-01T00:00:00Z, past what nanosecond clocks hold.
  auto got = DecodeProto<api::Pod>(PodCreatedAt("\x80\xe1\x9a\xa7\x3e"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->metadata.creation_timestamp, "2500-01-01T00:00:00Z");
  // 2^40 s is past the year 9999, which RFC 3339 cannot write.
  got = DecodeProto<api::Pod>(PodCreatedAt("\x80\x80\x80\x80\x80\x20"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "Pod p: field 1.8: time out of range");
}

TEST(ProtobufDecodeTest, OversizedInputIsRefused) {
  std::string huge(api::kMaxObjectBytes + 1, 'x');
  auto got = DecodeProto<api::Pod>(huge);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("exceeds the limit"), std::string::npos);
  ProtoFrameSplitter splitter(1024);
  bool called = false;
  Status st =
      splitter.Feed(std::string("\x00\x00\x04\x01", 4), [&](auto) { return called = true; });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("1025 bytes exceeds the limit of 1024"), std::string::npos);
  EXPECT_FALSE(called);
}

TEST(ProtobufWireTest, NestingBeyondTheCapIsAnError) {
  std::string msg = "x";
  for (int i = 0; i < wire::kMaxWireDepth + 2; ++i) {
    std::string outer;
    outer.push_back(0x0a);
    std::string len;
    for (uint64_t v = msg.size();; v >>= 7) {
      if (v < 0x80) {
        len.push_back(static_cast<char>(v));
        break;
      }
      len.push_back(static_cast<char>((v & 0x7f) | 0x80));
    }
    msg = outer + len + msg;
  }
  wire::WireReader r;
  std::function<void(const wire::Field&)> descend = [&](const wire::Field& f) {
    r.Sub(f, descend);
  };
  r.Each(msg, descend);
  EXPECT_NE(r.error().find("nested deeper than the limit"), std::string::npos) << r.error();
}

TEST(ProtobufWireTest, UnknownFieldsOfEveryWireTypeAreSkipped) {
  // Fields 20 (varint), 21 (fixed64) and 22 (fixed32), unknown to ObjectMeta, then name "p".
  std::string meta = std::string("\xa0\x01\x96\x01", 4) + std::string("\xa9\x01", 2) +
                     std::string(8, '\x01') + std::string("\xb5\x01", 2) + std::string(4, '\x02');
  Put(meta, 1, "p");
  std::string pod;
  Put(pod, 1, meta);
  auto got = DecodeProto<api::Pod>(Envelope("Pod", pod));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->metadata.name, "p");
  auto bad = DecodeProto<api::Pod>(Envelope("Pod", std::string("\x0b", 1)));  // a group
  EXPECT_NE(bad.status().message().find("unsupported wire type 3"), std::string::npos);
}

TEST(ProtobufDecodeTest, ErrorBodiesAreReadFromEitherEncoding) {
  std::string status;
  Put(status, 3, "too old");
  Put(status, 4, "Expired");
  status += std::string("\x30\x9a\x03", 3);  // code 410
  api::ApiStatus s = DecodeProtoApiStatus(Envelope("Status", status), 500);
  EXPECT_EQ(s.code, 410);
  EXPECT_EQ(s.reason, "Expired");
  EXPECT_EQ(s.message, "too old");
  s = DecodeProtoApiStatus(R"({"kind":"Status","code":409,"reason":"Conflict","message":"m"})",
                           409);
  EXPECT_EQ(s.reason, "Conflict");
}

}  // namespace
}  // namespace stowage::client::protobuf_golden_test
