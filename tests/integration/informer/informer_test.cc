// Informers against a real kube-apiserver + etcd: sync, a forced 410 Gone with changes in the
// gap, an apiserver restart under a running informer, and the shared factory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "pkg/client/resources.h"
#include "pkg/informer/informer_factory.h"
#include "stowage/common/mutex.h"
#include "tests/testing/cluster.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::informer_test {
namespace {

using informer::Filter;
using informer::SharedInformer;
using testing::BuildPod;
using testing::SharedCluster;

client::RestClient& Admin() { return SharedCluster().Admin(); }

// Records what a handler receives, by pod name.
struct Recorder : informer::EventHandler<api::Pod> {
  Mutex mu;
  std::map<std::string, int> adds, updates, deletes, unknown_deletes;
  void OnAdd(const Ptr& p, bool) override {
    MutexLock l(mu);
    adds[p->metadata.name]++;
  }
  void OnUpdate(const Ptr&, const Ptr& p) override {
    MutexLock l(mu);
    updates[p->metadata.name]++;
  }
  void OnDelete(const Ptr& p, bool final_state_unknown) override {
    MutexLock l(mu);
    deletes[p->metadata.name]++;
    if (final_state_unknown) unknown_deletes[p->metadata.name]++;
  }
  int Count(std::map<std::string, int>& m, const std::string& name) {
    MutexLock l(mu);
    return m.count(name) ? m[name] : 0;
  }
};

// Polls cond every 50 ms for up to `seconds`.
bool Eventually(const std::function<bool()>& cond, int seconds = 30) {
  return testing::Eventually(cond, std::chrono::seconds(seconds), std::chrono::milliseconds(50));
}

// name -> resourceVersion of the pods the server has in ns.
std::map<std::string, std::string> ServerPods(client::RestClient& c, const std::string& ns) {
  auto list = client::ListPage<api::Pod>(c, {.namespace_ = ns});
  EXPECT_TRUE(list.ok()) << list.status();
  std::map<std::string, std::string> out;
  if (list.ok()) {
    for (const auto& p : list->items) out[p->metadata.name] = p->metadata.resource_version;
  }
  return out;
}

std::map<std::string, std::string> StorePods(const SharedInformer<api::Pod>& inf) {
  std::map<std::string, std::string> out;
  for (const auto& p : inf.store().List()) out[p->metadata.name] = p->metadata.resource_version;
  return out;
}

TEST(InformerIntegration, RelistAfterGoneReconcilesTheGap) {
  const std::string ns = "relist";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  for (const char* name : {"keep", "change", "drop-1", "drop-2"}) {
    ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name(name)).ok());
  }
  SharedInformer<api::Pod> inf(Admin(), Filter{.namespace_ = ns}, /*page_size=*/2);
  auto rec = std::make_shared<Recorder>();
  inf.AddEventHandler(rec);
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(30)));
  EXPECT_EQ(inf.store().Size(), 4u);
  EXPECT_EQ(inf.ListCountForTest(), 1);

  // Changes the informer cannot see; then an apiserver restart, whose new watch cache starts at
  // etcd's current revision, so the informer's last version is too old: 410 Gone.
  inf.PauseForTest();
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "drop-1").ok());
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "drop-2").ok());
  ASSERT_TRUE(Admin()
                  .Patch("/api/v1/namespaces/" + ns + "/pods/change",
                         R"({"metadata":{"labels":{"changed":"yes"}}})", client::kMergePatch)
                  .ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("new-1")).ok());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name("new-2")).ok());
  SharedCluster().Stop();
  ASSERT_TRUE(SharedCluster().Start().ok());
  inf.ResumeForTest();

  ASSERT_TRUE(Eventually([&] { return inf.ListCountForTest() >= 2; })) << "no re-list after 410";
  auto server = ServerPods(Admin(), ns);
  ASSERT_TRUE(Eventually([&] { return StorePods(inf) == server; }));
  EXPECT_EQ(rec->Count(rec->unknown_deletes, "drop-1"), 1);
  EXPECT_EQ(rec->Count(rec->unknown_deletes, "drop-2"), 1);
  EXPECT_EQ(rec->Count(rec->updates, "change"), 1);
  EXPECT_EQ(rec->Count(rec->adds, "new-1"), 1);
  EXPECT_EQ(rec->Count(rec->adds, "new-2"), 1);
  EXPECT_EQ(rec->Count(rec->adds, "keep"), 1) << "an unchanged object is not delivered again";
  EXPECT_EQ(rec->Count(rec->updates, "keep"), 0);

  // The informer watches again after the re-list.
  ASSERT_TRUE(testing::DeletePod(Admin(), ns, "keep").ok());
  EXPECT_TRUE(Eventually([&] { return rec->Count(rec->deletes, "keep") == 1; }));
  EXPECT_EQ(rec->Count(rec->unknown_deletes, "keep"), 0);
  inf.Stop();
}

// Records the order of the adds of the initial list.
struct AddOrder : informer::EventHandler<api::Pod> {
  Mutex mu;
  std::vector<std::string> names;
  void OnAdd(const Ptr& p, bool) override {
    MutexLock l(mu);
    names.push_back(p->metadata.name);
  }
  void OnUpdate(const Ptr&, const Ptr&) override {}
  void OnDelete(const Ptr&, bool) override {}
};

TEST(InformerIntegration, TheInitialListReachesHandlersInTheServersOrder) {
  // Pods present at start enter the scheduling queue in this order; upstream's informer replays
  // its list in order, so equal-priority pods are taken in list order, not in hash order.
  const std::string ns = "list-order";
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), ns).ok());
  for (int i = 0; i < 40; ++i) {
    std::string name = "p" + std::to_string(100 + (i * 37) % 40);  // created out of order
    ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace(ns).Name(name)).ok());
  }
  auto list = client::ListPage<api::Pod>(Admin(), {.namespace_ = ns});
  ASSERT_TRUE(list.ok()) << list.status();
  std::vector<std::string> server_order;
  for (const auto& p : list->items) server_order.push_back(p->metadata.name);

  SharedInformer<api::Pod> inf(Admin(), Filter{.namespace_ = ns}, /*page_size=*/7);
  auto rec = std::make_shared<AddOrder>();
  inf.AddEventHandler(rec);
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(30)));
  {
    MutexLock l(rec->mu);
    EXPECT_EQ(rec->names, server_order);
  }
  inf.Stop();
}

TEST(InformerIntegration, RecoversWhenTheApiserverRestarts) {
  testing::TestCluster cluster;  // its own cluster: this test stops it
  ASSERT_TRUE(cluster.Start().ok());
  client::RestConfig cfg = cluster.AdminConfig();
  auto c = client::RestClient::New(cfg);
  ASSERT_TRUE(c.ok());
  client::RestClient& admin = **c;
  ASSERT_TRUE(testing::CreatePod(admin, BuildPod().Namespace("default").Name("before")).ok());

  SharedInformer<api::Pod> inf(admin, Filter{.namespace_ = "default"});
  auto rec = std::make_shared<Recorder>();
  inf.AddEventHandler(rec);
  inf.Start();
  ASSERT_TRUE(inf.WaitForSync(std::chrono::seconds(30)));

  cluster.Stop();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the informer now fails and backs off
  ASSERT_TRUE(cluster.Start().ok());
  Status created = testing::CreatePod(admin, BuildPod().Namespace("default").Name("after"));
  ASSERT_TRUE(created.ok()) << created;
  Status deleted = testing::DeletePod(admin, "default", "before");
  ASSERT_TRUE(deleted.ok()) << deleted;

  EXPECT_TRUE(Eventually([&] { return rec->Count(rec->adds, "after") == 1; }, 90));
  EXPECT_TRUE(Eventually([&] { return rec->Count(rec->deletes, "before") == 1; }, 90));
  EXPECT_EQ(StorePods(inf), ServerPods(admin, "default"));
  inf.Stop();
}

TEST(InformerIntegration, FactorySharesOneInformerPerKind) {
  ASSERT_TRUE(testing::EnsureNamespace(Admin(), "factory").ok());
  informer::InformerFactory factory(Admin());
  auto& a = factory.For<api::Pod>(Filter{.namespace_ = "factory"});
  auto& b = factory.For<api::Pod>(Filter{.namespace_ = "factory"});
  auto& nodes = factory.For<api::Node>();
  EXPECT_EQ(&a, &b);
  auto r1 = std::make_shared<Recorder>();
  auto r2 = std::make_shared<Recorder>();
  a.AddEventHandler(r1);
  b.AddEventHandler(r2);
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::seconds(30)));
  EXPECT_TRUE(nodes.HasSynced());
  ASSERT_TRUE(testing::CreatePod(Admin(), BuildPod().Namespace("factory").Name("shared")).ok());
  EXPECT_TRUE(Eventually([&] { return r1->Count(r1->adds, "shared") == 1; }));
  EXPECT_TRUE(Eventually([&] { return r2->Count(r2->adds, "shared") == 1; }));
  EXPECT_EQ(a.ListCountForTest(), 1) << "one list for both consumers";

  // A handler added late first receives what the informer already holds.
  auto late = std::make_shared<Recorder>();
  a.AddEventHandler(late);
  EXPECT_EQ(late->Count(late->adds, "shared"), 1);
  factory.Stop();
}

}  // namespace
}  // namespace stowage::informer_test
