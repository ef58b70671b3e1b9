// PodsInPreBind: preemption cancels a pod in PreBind in memory, and the binding cycle learns it
// when PreBind ends; once marked prebound, the pod can no longer be cancelled (it is deleted).
#include "pkg/scheduler/pods_in_pre_bind.h"

#include <gtest/gtest.h>

namespace stowage::scheduler::pods_in_pre_bind_test {
namespace {

TEST(PodsInPreBind, ACancelledPodIsNotMarkedPrebound) {
  PodsInPreBind pods;
  auto p = pods.Add("u1");
  std::shared_ptr<framework::PodInPreBind> seen = pods.Get("u1");
  ASSERT_EQ(seen, p);
  EXPECT_TRUE(seen->CancelPod("preempted by DefaultPreemption"));
  EXPECT_TRUE(seen->CancelPod("a second preemptor")) << "still cancelled, first cause kept";
  std::string cause;
  EXPECT_FALSE(p->MarkPrebound(cause));
  EXPECT_EQ(cause, "preempted by DefaultPreemption");
  pods.Remove("u1");
  EXPECT_EQ(pods.Get("u1"), nullptr);
}

TEST(PodsInPreBind, APreboundPodCannotBeCancelled) {
  PodsInPreBind pods;
  auto p = pods.Add("u1");
  std::string cause;
  ASSERT_TRUE(p->MarkPrebound(cause));
  EXPECT_FALSE(pods.Get("u1")->CancelPod("too late")) << "the caller deletes it instead";
  EXPECT_EQ(pods.Get("other"), nullptr);
}

}  // namespace
}  // namespace stowage::scheduler::pods_in_pre_bind_test
