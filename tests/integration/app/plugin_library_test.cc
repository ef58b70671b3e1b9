// The stowage binary with --plugin-library against the real test cluster: a library's Score and
// Filter plugins (tests/plugin_library) decide where a pod of the profile that enables them goes,
// and a library built against another SDK version keeps stowage from starting, saying why.
#include "stowage/framework/plugin_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "pkg/client/errors.h"
#include "pkg/client/resources.h"
#include "pkg/plugin_loader/root_owned_file.h"
#include "tests/integration/app/instance.h"
#include "tests/testing/eventually.h"
#include "tests/testing/objects.h"

namespace stowage::apptest::plugin_library_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::SharedCluster;

constexpr char kSchedulerName[] = "plugin-library-scheduler";

// A profile of its own: the library's Filter beside the default ones, its Score alone.
std::string WriteConfig() {
  const std::string path = SharedCluster().dir() + "/plugin-library-config.yaml";
  std::ofstream(path) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                         "kind: KubeSchedulerConfiguration\n"
                         "clientConnection:\n"
                         "  kubeconfig: "
                      << SharedCluster().kubeconfig()
                      << "\n"
                         "leaderElection:\n"
                         "  leaderElect: false\n"
                         "profiles:\n"
                         "- schedulerName: "
                      << kSchedulerName
                      << "\n"
                         "  plugins:\n"
                         "    filter:\n"
                         "      enabled:\n"
                         "      - name: RefuseLabelled\n"
                         "    score:\n"
                         "      disabled:\n"
                         "      - name: '*'\n"
                         "      enabled:\n"
                         "      - name: PreferScoreLabel\n";
  return path;
}

class PluginLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    // The loader takes root-owned files only; a build by another user could not pass.
    if (geteuid() != 0) GTEST_SKIP() << "needs root: plugin libraries must be root-owned";
    // A checkout in a directory others may write to cannot hold a library stowage accepts.
    if (auto ok = plugin_loader::OpenRootOwnedFile(TEST_PLUGINS); !ok.ok()) {
      GTEST_SKIP() << ok.status();
    }
  }
};

// The node the library's Score likes best is refused by its Filter, so the pod goes to the
// second best; without the Filter it would go to the best, without the Score anywhere.
TEST_F(PluginLibrary, ItsPluginsPlaceThePodsOfTheProfileThatEnablesThem) {
  client::RestClient& admin = SharedCluster().Admin();
  struct NodeCase {
    const char* name;
    const char* score;
    bool refuse;
  };
  for (const NodeCase& n : {NodeCase{"pl-best", "100", true}, NodeCase{"pl-good", "60", false},
                            NodeCase{"pl-plain", "", false}}) {
    auto node = testing::BuildClusterNode().Name(n.name);
    if (*n.score) node.Label("plugin-library.stowage.test/score", n.score);
    if (n.refuse) node.Label("plugin-library.stowage.test/refuse", "");
    Status s = testing::CreateNode(admin, node);
    ASSERT_TRUE(s.ok() || client::IsAlreadyExists(s)) << s;
  }
  Instance in({"--config=" + WriteConfig(), "--plugin-library=" + std::string(TEST_PLUGINS)});
  ASSERT_TRUE(in.WaitForLog("with plugins PreferScoreLabel, RefuseLabelled")) << in.Log();
  // Mapped before the sandbox closed; the plugins then run inside it.
  ASSERT_TRUE(in.WaitForLog("sandbox entered")) << in.Log();
  EXPECT_LT(in.Log().find("with plugins PreferScoreLabel"), in.Log().find("sandbox entered"));

  ASSERT_TRUE(testing::EnsureNamespace(admin, "plugin-library").ok());
  ASSERT_TRUE(testing::CreatePod(admin, testing::BuildPod()
                                            .Namespace("plugin-library")
                                            .Name("placed")
                                            .SchedulerName(kSchedulerName))
                  .ok());
  std::string node;
  EXPECT_TRUE(testing::Eventually(
      [&] {
        auto pod = client::GetObject<api::Pod>(admin, "plugin-library", "placed");
        if (pod.ok()) node = pod->spec.node_name;
        return !node.empty();
      },
      std::chrono::seconds(60)))
      << in.Log();
  EXPECT_EQ(node, "pl-good");
}

TEST_F(PluginLibrary, ALibraryWithAnotherAbiTagIsRefusedAtStartUp) {
  Instance in({"--leader-elect=false", "--plugin-library=" + std::string(TEST_PLUGINS_OTHER_SDK)});
  auto code = in.process().Wait(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << "stowage did not exit; log:\n" << in.Log();
  EXPECT_NE(*code, 0);
  EXPECT_THAT(in.Log(), AllOf(HasSubstr(TEST_PLUGINS_OTHER_SDK), HasSubstr("ABI tag mismatch"),
                              HasSubstr("stowage-sdk 0.0.0-other"),
                              HasSubstr(std::string(framework::kPluginAbiTag))));
  EXPECT_THAT(in.Log(), ::testing::Not(HasSubstr("sandbox entered")));
}

}  // namespace
}  // namespace stowage::apptest::plugin_library_test
