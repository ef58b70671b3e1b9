// The protobuf bodies of Binding and Event against the bytes Go's generated marshallers write for
// the same objects (printed by `go run ./tools/protogolden` in tests/cluster), and the choice of
// encoding by clientConnection.contentType.
#include "pkg/client/protobuf.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/client/resources.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::client::protobuf_test {
namespace {

using namespace std::string_literals;  // "..."s keeps the NUL bytes

const std::string kGoBinding =
    "\x6b\x38\x73\x00\x0a\x0d\x0a\x02\x76\x31\x12\x07\x42\x69\x6e\x64\x69\x6e\x67\x12\x3c"
    "\x0a\x1e\x0a\x05\x70\x6f\x64\x2d\x31\x12\x00\x1a\x04\x6e\x73\x2d\x61\x22\x00\x2a\x05"
    "\x75\x69\x64\x2d\x31\x32\x00\x38\x00\x42\x00\x12\x1a\x0a\x04\x4e\x6f\x64\x65\x12\x00"
    "\x1a\x06\x6e\x6f\x64\x65\x2d\x37\x22\x00\x2a\x02\x76\x31\x32\x00\x3a\x00\x1a\x00\x22"
    "\x00"s;
const std::string kGoEvent =
    "\x6b\x38\x73\x00\x0a\x19\x0a\x10\x65\x76\x65\x6e\x74\x73\x2e\x6b\x38\x73\x2e\x69\x6f"
    "\x2f\x76\x31\x12\x05\x45\x76\x65\x6e\x74\x12\xd2\x01\x0a\x1f\x0a\x0b\x70\x6f\x64\x2d"
    "\x31\x2e\x31\x38\x61\x62\x63\x12\x00\x1a\x04\x6e\x73\x2d\x61\x22\x00\x2a\x00\x32\x00"
    "\x38\x00\x42\x00\x12\x0b\x08\xee\x8f\xa0\xd8\x06\x10\x80\x94\xef\x3a\x22\x11\x64\x65"
    "\x66\x61\x75\x6c\x74\x2d\x73\x63\x68\x65\x64\x75\x6c\x65\x72\x2a\x16\x64\x65\x66\x61"
    "\x75\x6c\x74\x2d\x73\x63\x68\x65\x64\x75\x6c\x65\x72\x2d\x68\x6f\x73\x74\x32\x07\x42"
    "\x69\x6e\x64\x69\x6e\x67\x3a\x09\x53\x63\x68\x65\x64\x75\x6c\x65\x64\x42\x23\x0a\x03"
    "\x50\x6f\x64\x12\x04\x6e\x73\x2d\x61\x1a\x05\x70\x6f\x64\x2d\x31\x22\x05\x75\x69\x64"
    "\x2d\x31\x2a\x02\x76\x31\x32\x02\x34\x32\x3a\x00\x52\x2a\x53\x75\x63\x63\x65\x73\x73"
    "\x66\x75\x6c\x6c\x79\x20\x61\x73\x73\x69\x67\x6e\x65\x64\x20\x6e\x73\x2d\x61\x2f\x70"
    "\x6f\x64\x2d\x31\x20\x74\x6f\x20\x6e\x6f\x64\x65\x2d\x37\x5a\x06\x4e\x6f\x72\x6d\x61"
    "\x6c\x62\x04\x0a\x00\x12\x00\x6a\x00\x72\x00\x78\x00\x1a\x00\x22\x00"s;
const std::string kGoEventWithSeries =
    "\x6b\x38\x73\x00\x0a\x19\x0a\x10\x65\x76\x65\x6e\x74\x73\x2e\x6b\x38\x73\x2e\x69\x6f"
    "\x2f\x76\x31\x12\x05\x45\x76\x65\x6e\x74\x12\xe4\x01\x0a\x1f\x0a\x0b\x70\x6f\x64\x2d"
    "\x31\x2e\x31\x38\x61\x62\x63\x12\x00\x1a\x04\x6e\x73\x2d\x61\x22\x00\x2a\x00\x32\x00"
    "\x38\x00\x42\x00\x12\x0b\x08\xee\x8f\xa0\xd8\x06\x10\x80\x94\xef\x3a\x1a\x10\x08\x02"
    "\x12\x0c\x08\xef\x8f\xa0\xd8\x06\x10\x80\xde\xa4\xa9\x02\x22\x11\x64\x65\x66\x61\x75"
    "\x6c\x74\x2d\x73\x63\x68\x65\x64\x75\x6c\x65\x72\x2a\x16\x64\x65\x66\x61\x75\x6c\x74"
    "\x2d\x73\x63\x68\x65\x64\x75\x6c\x65\x72\x2d\x68\x6f\x73\x74\x32\x07\x42\x69\x6e\x64"
    "\x69\x6e\x67\x3a\x09\x53\x63\x68\x65\x64\x75\x6c\x65\x64\x42\x23\x0a\x03\x50\x6f\x64"
    "\x12\x04\x6e\x73\x2d\x61\x1a\x05\x70\x6f\x64\x2d\x31\x22\x05\x75\x69\x64\x2d\x31\x2a"
    "\x02\x76\x31\x32\x02\x34\x32\x3a\x00\x52\x2a\x53\x75\x63\x63\x65\x73\x73\x66\x75\x6c"
    "\x6c\x79\x20\x61\x73\x73\x69\x67\x6e\x65\x64\x20\x6e\x73\x2d\x61\x2f\x70\x6f\x64\x2d"
    "\x31\x20\x74\x6f\x20\x6e\x6f\x64\x65\x2d\x37\x5a\x06\x4e\x6f\x72\x6d\x61\x6c\x62\x04"
    "\x0a\x00\x12\x00\x6a\x00\x72\x00\x78\x00\x1a\x00\x22\x00"s;

api::ObjectMeta Pod() {
  api::ObjectMeta m;
  m.name = "pod-1";
  m.namespace_ = "ns-a";
  m.uid = "uid-1";
  m.resource_version = "42";
  return m;
}

api::EventRecord Scheduled() {
  api::EventRecord e;
  e.name = "pod-1.18abc";
  e.namespace_ = "ns-a";
  e.event_time = "2026-11-26T10:20:30.123456Z";
  e.reporting_controller = "default-scheduler";
  e.reporting_instance = "default-scheduler-host";
  e.action = "Binding";
  e.reason = "Scheduled";
  e.note = "Successfully assigned ns-a/pod-1 to node-7";
  e.type = "Normal";
  e.regarding_kind = "Pod";
  e.regarding_api_version = "v1";
  e.regarding = Pod();
  return e;
}

TEST(Protobuf, BindingIsGosBytes) { EXPECT_EQ(EncodeBindingProto(Pod(), "node-7"), kGoBinding); }

TEST(Protobuf, EventIsGosBytes) {
  auto e = EncodeEventProto(Scheduled());
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(*e, kGoEvent);

  api::EventRecord series = Scheduled();
  series.series_count = 2;
  series.series_last_observed_time = "2026-11-26T10:20:31.623456Z";
  auto s = EncodeEventProto(series);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, kGoEventWithSeries);

  series.event_time = "yesterday";
  EXPECT_FALSE(EncodeEventProto(series).ok());
}

// Protobuf with upstream's default contentType, JSON without it (as before).
TEST(Protobuf, ContentTypeChoosesTheEncoding) {
  for (const std::string& content_type : {std::string(kProtobuf), std::string()}) {
    auto owned = std::make_unique<stowage::testing::FakeApiServer>();
    stowage::testing::FakeApiServer& api = *owned;
    RestConfig cfg;
    cfg.server = "https://127.0.0.1:6443";
    cfg.qps = 0;
    cfg.content_type = content_type;
    RestClient c(cfg, std::move(owned), RetryPolicy{.max_retries = 0});
    ASSERT_TRUE(BindPod(c, Pod(), "node-7").ok());
    ASSERT_TRUE(CreateEvent(c, Scheduled()).ok());
    auto posts = api.RequestsOf("POST");
    ASSERT_EQ(posts.size(), 2u);
    if (content_type.empty()) {
      EXPECT_EQ(posts[0].content_type, "");
      EXPECT_EQ(posts[0].body, api::EncodeBinding(Pod(), "node-7"));
      EXPECT_EQ(posts[1].body, api::EncodeEvent(Scheduled()));
    } else {
      EXPECT_EQ(posts[0].content_type, kProtobuf);
      EXPECT_EQ(posts[0].body, kGoBinding);
      EXPECT_EQ(posts[1].content_type, kProtobuf);
      EXPECT_EQ(posts[1].body, kGoEvent);
    }
  }
}

// Every kind's list asks for protobuf under upstream's default contentType, not only Pods and
// Nodes; an answer in JSON (a proxy that could not give protobuf) is still read.
TEST(Protobuf, EveryKindListsAsProtobuf) {
  auto owned = std::make_unique<stowage::testing::FakeApiServer>();
  stowage::testing::FakeApiServer& api = *owned;
  api.SetList("/apis/storage.k8s.io/v1/storageclasses",
              {{{"metadata", {{"name", "wffc"}}}, {"volumeBindingMode", "WaitForFirstConsumer"}}});
  RestConfig cfg;
  cfg.server = "https://127.0.0.1:6443";
  cfg.qps = 0;
  cfg.content_type = std::string(kProtobuf);
  RestClient c(cfg, std::move(owned), RetryPolicy{.max_retries = 0});
  auto list = ListPage<api::StorageClass>(c, {});
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0]->metadata.name, "wffc");
  auto gets = api.RequestsOf("GET");
  ASSERT_EQ(gets.size(), 1u);
  EXPECT_EQ(gets[0].accept, kProtobuf);
}

}  // namespace
}  // namespace stowage::client::protobuf_test
