// InformerFactory: one informer, hence one list and watch, per kind and filter however many
// consumers ask for it.
#include "pkg/informer/informer_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/eventually.h"
#include "tests/testing/fake_api_server.h"

namespace stowage::informer::informer_factory_test {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

// The list requests (watches excluded) sent to path.
std::vector<client::HttpRequest> Lists(const stowage::testing::FakeApiServer& api,
                                       std::string_view path) {
  std::vector<client::HttpRequest> out;
  for (auto& r : api.RequestsTo(path)) {
    if (r.target.find("watch=true") == std::string::npos) out.push_back(r);
  }
  return out;
}

TEST(InformerFactory, SharesOneInformerPerKindAndFilter) {
  stowage::testing::FakeClient fake;
  fake.api->SetList("/api/v1/nodes", {});
  fake.api->SetList("/api/v1/pods", {});
  InformerFactory factory(*fake.client);
  Filter unassigned{.field_selector = "spec.nodeName="};

  auto& nodes = factory.For<api::Node>();
  EXPECT_EQ(&nodes, &factory.For<api::Node>());
  auto& all_pods = factory.For<api::Pod>();
  auto& unassigned_pods = factory.For<api::Pod>(unassigned);
  EXPECT_NE(static_cast<InformerBase*>(&all_pods), static_cast<InformerBase*>(&unassigned_pods));
  EXPECT_EQ(&unassigned_pods, &factory.For<api::Pod>(unassigned));

  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::seconds(20)));
  EXPECT_THAT(Lists(*fake.api, "/api/v1/nodes"), SizeIs(1));
  auto pod_lists = Lists(*fake.api, "/api/v1/pods");
  ASSERT_THAT(pod_lists, SizeIs(2));
  int filtered = 0;
  for (const auto& r : pod_lists) {
    if (r.target.find("fieldSelector=spec.nodeName") != std::string::npos) ++filtered;
  }
  EXPECT_EQ(filtered, 1);
  factory.Stop();
}

TEST(InformerFactory, AnInformerAskedForAfterStartStartsAtOnce) {
  stowage::testing::FakeClient fake;
  fake.api->SetList("/api/v1/nodes", {});
  InformerFactory factory(*fake.client);
  factory.Start();
  auto& nodes = factory.For<api::Node>();
  EXPECT_TRUE(nodes.WaitForSync(std::chrono::seconds(20)));
  factory.Stop();
}

}  // namespace
}  // namespace stowage::informer::informer_factory_test
