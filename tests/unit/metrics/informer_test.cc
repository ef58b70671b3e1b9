// client-go's informer_* series: labelled like upstream's, the resource version truncated to its
// 15 least significant digits.
#include "pkg/metrics/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace stowage::metrics::informer_test {
namespace {

using ::testing::HasSubstr;

TEST(InformerMetrics, SeriesExistFromCreationWithUpstreamLabels) {
  InformerMetrics m({"kube-scheduler", "storage.k8s.io", "v1", "storageclasss"});
  std::string out = Registry::Global().Render();
  const std::string labels =
      "{group=\"storage.k8s.io\",name=\"kube-scheduler\",resource=\"storageclasss\","
      "version=\"v1\"}";
  EXPECT_THAT(out, HasSubstr("informer_queued_items" + labels + " 0\n"));
  EXPECT_THAT(out, HasSubstr("informer_store_resource_version" + labels + " 0\n"));
  EXPECT_THAT(out, HasSubstr("informer_processing_latency_seconds_count" + labels + " 0\n"));
}

TEST(InformerMetrics, ProcessingAndResourceVersion) {
  InformerMetrics m({"kube-scheduler", "", "v1", "pods"});
  const std::string labels =
      "{group=\"\",name=\"kube-scheduler\",resource=\"pods\",version=\"v1\"}";
  m.ObserveProcessing(0.003);
  // 19 digits: the last 15 are kept, written as Go writes large floats.
  m.SetStoreResourceVersion("1234567890123456789");
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("informer_processing_latency_seconds_bucket{group=\"\",name=\"kube-"
                             "scheduler\",resource=\"pods\",version=\"v1\",le=\"0.005\"} 1\n"));
  EXPECT_THAT(out,
              HasSubstr("informer_store_resource_version" + labels + " 5.67890123456789e+14\n"));
  m.SetStoreResourceVersion("not-a-number");  // left as it was
  EXPECT_THAT(Registry::Global().Render(),
              HasSubstr("informer_store_resource_version" + labels + " 5.67890123456789e+14\n"));
}

}  // namespace
}  // namespace stowage::metrics::informer_test
