// The schema's JSON-out engine: every kind, with every declared field set (the golden objects
// Go wrote, tests/fixtures/schema), written out and read back gives the same object; zero values
// stay out; a volume's source is written even when none of its fields is kept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pkg/api/decode.h"
#include "pkg/api/encode.h"
#include "pkg/api/schema_generated.h"
#include "tests/testing/fixtures.h"

namespace stowage::api::encode_schema_test {
namespace {

using json = nlohmann::json;

template <typename T>
void ExpectRoundTrip() {
  const std::string name(KindName<T>());
  SCOPED_TRACE(name);
  auto golden = Decode<T>(stowage::testing::ReadFixture("schema/" + name + ".json"));
  ASSERT_TRUE(golden.ok()) << golden.status();
  const std::string written = EncodeJson(*golden);
  ASSERT_TRUE(json::accept(written)) << written;
  auto again = Decode<T>(written);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << written;
  EXPECT_TRUE(*again == *golden) << written;
}

TEST(EncodeJson, EveryKindReadsBackAsWritten) {
#define STOWAGE_ROUND_TRIP(T) ExpectRoundTrip<T>();
  STOWAGE_SCHEMA_KINDS(STOWAGE_ROUND_TRIP)
#undef STOWAGE_ROUND_TRIP
}

TEST(EncodeJson, ZeroValuesStayOut) {
  Pod pod;
  pod.metadata.name = "p";
  pod.spec.containers.emplace_back().name = "c";
  EXPECT_EQ(json::parse(EncodeJson(pod)),
            json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})"));
}

TEST(EncodeJson, AVolumeSourceIsWrittenEvenWithoutKeptFields) {
  auto pod = Decode<Pod>(R"({"metadata":{"name":"p"},"spec":{"volumes":[
      {"name":"a","emptyDir":{}},{"name":"b","configMap":{"name":"cm"}},
      {"name":"c","persistentVolumeClaim":{"claimName":"data"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.status();
  json volumes = json::parse(EncodeJson(*pod))["spec"]["volumes"];
  EXPECT_EQ(volumes, json::parse(R"([{"name":"a","emptyDir":{}},{"name":"b","configMap":{}},
      {"name":"c","persistentVolumeClaim":{"claimName":"data"}}])"));
}

TEST(EncodeJson, StringsAreEscapedAsGoEscapesThem) {
  Pod pod;
  pod.metadata.name = std::string("a\"b\\c\n<&>\x01\xff", 11);
  EXPECT_EQ(EncodeJson(pod), R"({"metadata":{"name":"a\"b\\c\n\u003c\u0026\u003e\u0001\ufffd"}})");
}

TEST(EncodeObject, CarriesKindAndTheKeptFields) {
  Lease lease;
  lease.metadata.name = "kube-scheduler";
  lease.metadata.namespace_ = "kube-system";
  lease.metadata.resource_version = "42";
  lease.holder_identity = "me";
  lease.lease_duration_seconds = 15;
  lease.lease_transitions = 3;
  EXPECT_EQ(json::parse(EncodeObject(lease)), json::parse(R"({"apiVersion":"coordination.k8s.io/v1",
      "kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system",
      "resourceVersion":"42"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15,
      "leaseTransitions":3}})"));
  // Set pointers are written even when zero, as Go writes a pointer to "" or 0.
  Lease released;
  released.holder_identity = "";
  released.lease_transitions = 0;
  EXPECT_EQ(EncodeObject(released), R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                                    R"("spec":{"holderIdentity":"","leaseTransitions":0}})");
  EXPECT_EQ(EncodeObject(TokenReview()),
            R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview"})");
}

}  // namespace
}  // namespace stowage::api::encode_schema_test
