// The scheduler families that 1.37 added or changed and that stowage derives or hides.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pkg/metrics/metrics.h"

namespace stowage::metrics::scheduler_metrics_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// stowage queues single pods, so every queued pod is an entity of type "pod".
TEST(SchedulerMetrics, QueuedEntitiesFollowPendingPods) {
  PendingPods(Queue::kActive).Set(3);
  PendingPods(Queue::kGated).Set(1);
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("scheduler_queued_entities{queue=\"active\",type=\"pod\"} 3\n"));
  EXPECT_THAT(out, HasSubstr("scheduler_queued_entities{queue=\"gated\",type=\"pod\"} 1\n"));
  EXPECT_THAT(out, HasSubstr("# HELP scheduler_queued_entities [ALPHA] Number of queued "
                             "scheduling entities ('pod' or 'podgroup';"));
}

TEST(SchedulerMetrics, IncomingEntitiesFollowIncomingPods) {
  QueueIncomingPods(Queue::kBackoff, "NodeAdd").Increment();
  QueueIncomingPods(Queue::kBackoff, "NodeAdd").Increment();
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out, HasSubstr("scheduler_queue_incoming_entities_total{event=\"NodeAdd\","
                             "queue=\"backoff\",type=\"pod\"} 2\n"));
  EXPECT_THAT(out, HasSubstr("scheduler_queue_incoming_pods_total{event=\"NodeAdd\","
                             "queue=\"backoff\"} 2\n"));
}

// Deprecated in 1.37 at ALPHA, so component-base hides it at once; its sibling stays.
TEST(SchedulerMetrics, PreemptionGoroutinesDurationIsHidden) {
  ObservePreemptionGoroutine(true, 0.5);
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out,
              HasSubstr("scheduler_preemption_goroutines_execution_total{result=\"success\"}"));
  EXPECT_THAT(out, Not(HasSubstr("scheduler_preemption_goroutines_duration_seconds")));
  EXPECT_THAT(out, HasSubstr("hidden_metrics_total 1\n"));
}

// As upstream's CounterVec, an operation's series appears with its first error.
TEST(SchedulerMetrics, VolumeStageErrorsAppearByOperation) {
  EXPECT_THAT(Registry::Global().Render(),
              Not(HasSubstr("scheduler_volume_scheduling_stage_error_total{")));
  VolumeSchedulingStageError("bind").Increment();
  VolumeSchedulingStageError("bind").Increment();
  VolumeSchedulingStageError("predicate").Increment();
  std::string out = Registry::Global().Render();
  EXPECT_THAT(out,
              HasSubstr("scheduler_volume_scheduling_stage_error_total{operation=\"bind\"} 2\n"));
  EXPECT_THAT(
      out, HasSubstr("scheduler_volume_scheduling_stage_error_total{operation=\"predicate\"} 1\n"));
  EXPECT_THAT(
      out, Not(HasSubstr("scheduler_volume_scheduling_stage_error_total{operation=\"assume\"}")));
}

}  // namespace
}  // namespace stowage::metrics::scheduler_metrics_test
