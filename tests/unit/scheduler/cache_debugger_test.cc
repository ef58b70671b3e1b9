// The cache debugger (SIGUSR2): what it reports as missing or redundant when the cache and the
// queue disagree with the informers, and how it prints nodes, pods and resources.
#include "pkg/scheduler/cache_debugger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>

#include "pkg/common/logging.h"
#include "stowage/common/clock.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"
#include "tests/testing/fake_lister.h"
#include "tests/testing/stub_plugins.h"

namespace stowage::scheduler::cache_debugger_test {
namespace {

using stowage::testing::BuildNode;
using stowage::testing::BuildPod;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(CacheDebuggerCompare, SplitsTheDifferenceIntoMissedAndRedundant) {
  auto d = CacheDebugger::CompareStrings({"c", "a", "b", "b"}, {"b", "d", "a"});
  EXPECT_EQ(d.missed, (std::vector<std::string>{"b", "c"}));  // one b is matched, one is not
  EXPECT_EQ(d.redundant, (std::vector<std::string>{"d"}));
  auto same = CacheDebugger::CompareStrings({"x"}, {"x"});
  EXPECT_TRUE(same.missed.empty());
  EXPECT_TRUE(same.redundant.empty());
}

TEST(CacheDebuggerPrint, ResourcesAndPodsAsUpstreamPrintsThem) {
  framework::Resource r;
  r.milli_cpu = 1500;
  r.memory = 1024;
  r.allowed_pod_number = 110;
  r.SetScalar("scheduling.k8s.io/foo", 5);
  r.SetScalar("example.com/a", 1);
  EXPECT_EQ(CacheDebugger::PrintResource(r),
            "&{MilliCPU:1500 Memory:1024 EphemeralStorage:0 AllowedPodNumber:110 "
            "ScalarResources:map[example.com/a:1 scheduling.k8s.io/foo:5]}");
  api::Pod p = *BuildPod().Namespace("ns").Name("p").UID("u1").Obj();
  p.status.phase = "Running";
  p.status.nominated_node_name = "n1";
  EXPECT_EQ(CacheDebugger::PrintPod(p),
            "name: p, namespace: ns, uid: u1, phase: Running, nominated node: n1\n");
}

// A cache, a queue and listers standing for the informers, with the log captured.
class CacheDebuggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Sort", [] {
                  return new stowage::testing::StubSort;
                }).ok());
    ASSERT_TRUE(stowage::testing::RegisterStub(registry_, "Bind", [] {
                  return new stowage::testing::StubBinder;
                }).ok());
    framework::ProfileSpec spec;
    spec.scheduler_name = "default-scheduler";
    spec.at(framework::ExtensionPoint::kQueueSort) = {{"Sort"}};
    spec.at(framework::ExtensionPoint::kBind) = {{"Bind"}};
    auto fw = framework::Framework::New(registry_, spec, handle_);
    ASSERT_TRUE(fw.ok()) << fw.status();
    fw_ = std::move(*fw);
    queue_ = std::make_unique<queue::SchedulingQueue>(
        std::map<std::string, framework::Framework*>{{"default-scheduler", fw_.get()}},
        queue::QueueOptions{}, RealClock());
    logging::Config c;
    ASSERT_TRUE(
        logging::InitWithSink(c, std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)).ok());
  }
  void TearDown() override { logging::Init(0); }

  stowage::testing::FakeLister<api::Node> nodes_;
  stowage::testing::FakeLister<api::Pod> pods_;
  cache::Cache cache_;
  framework::Registry registry_;
  stowage::testing::FakeHandle handle_;
  std::unique_ptr<framework::Framework> fw_;
  std::unique_ptr<queue::SchedulingQueue> queue_;
  std::ostringstream out_;
};

TEST_F(CacheDebuggerTest, AgreementLogsNoMismatchAndTheDumpShowsNodesPodsAndTheQueue) {
  api::NodePtr n1 = BuildNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Obj();
  nodes_.Add(*n1);
  cache_.AddNode(n1);
  api::PodPtr bound = BuildPod().Namespace("ns").Name("bound").UID("u-bound").Node("n1").Obj();
  pods_.Add(*bound);
  ASSERT_TRUE(cache_.AddPod(bound).ok());
  api::PodPtr pending = BuildPod().Namespace("ns").Name("pending").UID("u-pending").Obj();
  pods_.Add(*pending);
  queue_->Add(pending);

  CacheDebugger(nodes_, pods_, cache_, *queue_).CompareAndDump();
  std::string log = out_.str();
  EXPECT_THAT(log, Not(HasSubstr("Cache mismatch")));
  EXPECT_THAT(log,
              HasSubstr("Dump of cached NodeInfo nodes=<\n\tNode name: n1\n\tDeleted: false\n"));
  EXPECT_THAT(log, HasSubstr("AllowedPodNumber:110"));
  EXPECT_THAT(log,
              HasSubstr("Scheduled Pods(number: 1):\n\tname: bound, namespace: ns, uid: u-bound"));
  EXPECT_THAT(log, HasSubstr("Dump of scheduling queue summary=\"activeQ:1; backoffQ:0; "
                             "unschedulableEntities:0\" pods=<\n\tname: pending, namespace: ns"));
}

TEST_F(CacheDebuggerTest, DisagreementNamesTheMissedAndTheRedundant) {
  // The informer has n1 and n2 and pods a (bound) and b (pending); the cache has n1 and a ghost
  // n3, with a ghost pod on n1, and the queue does not have b.
  for (const char* name : {"n1", "n2"}) nodes_.Add(*BuildNode().Name(name).Obj());
  cache_.AddNode(BuildNode().Name("n1").Obj());
  cache_.AddNode(BuildNode().Name("n3").Obj());
  api::PodPtr a = BuildPod().Namespace("ns").Name("a").UID("u-a").Node("n1").Obj();
  pods_.Add(*a);
  ASSERT_TRUE(cache_.AddPod(a).ok());
  pods_.Add(*BuildPod().Namespace("ns").Name("b").UID("u-b").Obj());
  ASSERT_TRUE(
      cache_.AddPod(BuildPod().Namespace("ns").Name("ghost").UID("u-ghost").Node("n1").Obj()).ok());

  CacheDebugger(nodes_, pods_, cache_, *queue_).Compare();
  std::string log = out_.str();
  EXPECT_THAT(log, HasSubstr("Cache mismatch missedNodes=[n2] redundantNodes=[n3]"));
  EXPECT_THAT(log, HasSubstr("Cache mismatch missedPods=[u-b] redundantPods=[u-ghost]"));
}

}  // namespace
}  // namespace stowage::scheduler::cache_debugger_test
