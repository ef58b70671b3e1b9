// SIGUSR2 runs kube-scheduler's cache debugger in the stowage binary, sandbox and all: the
// comparison and both dumps reach the log, and the process keeps scheduling and stops cleanly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/app/instance.h"
#include "tests/testing/builders.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::cache_debugger_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::SharedCluster;

TEST(CacheDebugger, Sigusr2DumpsTheCacheAndTheQueueAndTheSchedulerCarriesOn) {
  ASSERT_TRUE(testing::CreateNode(SharedCluster().Admin(),
                                  testing::BuildNode()
                                      .Name("debugger-node")
                                      .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}))
                  .ok());
  Instance in({"--leader-elect=false"});
  ASSERT_TRUE(in.WaitForLog("caches synced")) << in.Log();
  in.process().Signal(SIGUSR2);
  ASSERT_TRUE(in.WaitForLog("Dump of scheduling queue", 30s)) << in.Log();
  std::string log = in.Log();
  EXPECT_THAT(log, HasSubstr("Dump of cached NodeInfo nodes=<\n\tNode name: debugger-node\n"
                             "\tDeleted: false\n\tRequested Resources: &{MilliCPU:0"));
  EXPECT_THAT(log, HasSubstr("Allocatable Resources:&{MilliCPU:4000 Memory:8589934592"));
  EXPECT_THAT(log, Not(HasSubstr("missedNodes"))) << "the cache disagrees with the informer";
  // Still alive and still answering signals: SIGTERM stops it as usual.
  in.process().Signal(SIGTERM);
  auto code = in.process().Wait(30s);
  ASSERT_TRUE(code.has_value()) << in.Log();
  EXPECT_EQ(*code, 0) << in.Log();
}

}  // namespace
}  // namespace stowage::apptest::cache_debugger_test
