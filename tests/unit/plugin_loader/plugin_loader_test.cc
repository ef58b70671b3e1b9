// The plugin loader against real shared libraries (tests/plugin_library): a library whose plugins
// then run from the registry, and each refusal with the message an operator would read. The
// ownership cases chown files, so they need root (the machine runs tests as root) and skip
// otherwise.
#include "pkg/plugin_loader/plugin_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pkg/plugin_loader/root_owned_file.h"
#include "stowage/framework/plugin_library.h"
#include "tests/testing/builders.h"
#include "tests/testing/fake_handle.h"

namespace stowage::plugin_loader::plugin_loader_test {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A fresh directory beside the test libraries, whose ancestors are root-owned in a root's build.
class PluginLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root: the loader accepts root-owned files only";
    // A checkout in a directory others may write to cannot hold a library the loader accepts.
    if (auto ok = OpenRootOwnedFile(TEST_PLUGINS); !ok.ok()) GTEST_SKIP() << ok.status();
    std::string tmpl = fs::path(TEST_PLUGINS).parent_path() / "scratch-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // A copy of a built library (or any file) under the scratch directory.
  std::string Copy(const std::string& from, const std::string& name) {
    const std::string to = dir_ + "/" + name;
    fs::create_directories(fs::path(to).parent_path());
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
  }
  // The error of loading paths into a fresh in-tree-less registry ("" if it loaded).
  std::string LoadError(const std::vector<std::string>& paths) {
    framework::Registry registry;
    auto loaded = LoadPluginLibraries(paths, registry);
    return loaded.ok() ? "" : std::string(loaded.status().message());
  }

  std::string dir_;
};

TEST_F(PluginLoaderTest, LoadedPluginsRunFromTheRegistry) {
  framework::Registry registry;
  auto loaded = LoadPluginLibraries({TEST_PLUGINS}, registry);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].path, TEST_PLUGINS);
  EXPECT_THAT((*loaded)[0].plugins, ElementsAre("PreferScoreLabel", "RefuseLabelled"));

  testing::FakeHandle handle;
  auto score = registry.Build("p", "PreferScoreLabel", {}, handle, {});
  ASSERT_TRUE(score.ok()) << score.status();
  auto* scorer = dynamic_cast<framework::ScorePlugin*>(score->get());
  ASSERT_NE(scorer, nullptr);  // the library's class derives from the binary's interface
  framework::CycleState state;
  auto pod = framework::NewPodInfo(testing::BuildPod().Name("p").Obj());
  int64_t points = -1;
  auto labelled = testing::MakeNodeInfo(
      testing::BuildNode().Name("a").Label("plugin-library.stowage.test/score", "70").Obj());
  EXPECT_TRUE(scorer->Score(state, *pod, *labelled, points).IsSuccess());
  EXPECT_EQ(points, 70);

  auto filter = registry.Build("p", "RefuseLabelled", {}, handle, {});
  ASSERT_TRUE(filter.ok()) << filter.status();
  auto* filterer = dynamic_cast<framework::FilterPlugin*>(filter->get());
  ASSERT_NE(filterer, nullptr);
  auto refused = testing::MakeNodeInfo(
      testing::BuildNode().Name("b").Label("plugin-library.stowage.test/refuse", "").Obj());
  framework::Status s = filterer->Filter(state, *pod, *refused);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_THAT(s.Message(), HasSubstr("refused by RefuseLabelled"));
  EXPECT_TRUE(filterer->Filter(state, *pod, *labelled).IsSuccess());
}

TEST_F(PluginLoaderTest, RefusesPathsThatAreNotThere) {
  EXPECT_THAT(LoadError({"lib/x.so"}), HasSubstr("\"lib/x.so\": the path must be absolute"));
  EXPECT_THAT(LoadError({dir_ + "/missing.so"}), HasSubstr("missing.so\" does not exist"));
  EXPECT_THAT(LoadError({dir_ + "/no/x.so"}),
              HasSubstr("its directory \"" + dir_ + "/no\" does not exist"));
}

TEST_F(PluginLoaderTest, RefusesFilesAndDirectoriesNotOwnedByRoot) {
  const std::string file = Copy(TEST_PLUGINS, "a.so");
  ASSERT_EQ(chown(file.c_str(), 65534, 65534), 0);
  EXPECT_THAT(LoadError({file}), HasSubstr("a.so\" is owned by uid 65534, not by root"));

  const std::string nested = Copy(TEST_PLUGINS, "sub/b.so");
  ASSERT_EQ(chown((dir_ + "/sub").c_str(), 65534, 0), 0);
  EXPECT_THAT(LoadError({nested}),
              HasSubstr("its directory \"" + dir_ + "/sub\" is owned by uid 65534, not by root"));
}

TEST_F(PluginLoaderTest, RefusesFilesAndDirectoriesWritableByOthers) {
  const std::string file = Copy(TEST_PLUGINS, "a.so");
  ASSERT_EQ(chmod(file.c_str(), 0757), 0);
  EXPECT_THAT(LoadError({file}), HasSubstr("a.so\" is writable by group or others (mode 0757)"));
  const std::string nested = Copy(TEST_PLUGINS, "sub/b.so");
  ASSERT_EQ(chmod((dir_ + "/sub").c_str(), 0775), 0);
  EXPECT_THAT(LoadError({nested}), HasSubstr("its directory \"" + dir_ +
                                             "/sub\" is writable by group or others (mode 0775)"));
}

// A root-owned sticky directory writable by all (as /tmp) is passed through: others cannot
// rename or remove what is in it. Without the sticky bit it is refused.
TEST_F(PluginLoaderTest, AcceptsARootOwnedStickyDirectoryOnTheWay) {
  const std::string nested = Copy(TEST_PLUGINS, "shared/safe/b.so");
  ASSERT_EQ(chmod((dir_ + "/shared").c_str(), 01777), 0);
  EXPECT_EQ(LoadError({nested}), "");
  ASSERT_EQ(chmod((dir_ + "/shared").c_str(), 0777), 0);
  EXPECT_THAT(LoadError({nested}),
              HasSubstr("its directory \"" + dir_ +
                        "/shared\" is writable by group or others (mode 0777)"));
  // The sticky bit does not cover the library itself.
  ASSERT_EQ(chmod((dir_ + "/shared").c_str(), 01777), 0);
  ASSERT_EQ(chmod(nested.c_str(), 01777), 0);
  EXPECT_THAT(LoadError({nested}), HasSubstr("is writable by group or others (mode 1777)"));
}

TEST_F(PluginLoaderTest, RefusesSymbolicLinksAndFilesThatAreNotRegular) {
  const std::string real = Copy(TEST_PLUGINS, "real/a.so");
  fs::create_symlink(real, dir_ + "/link.so");
  EXPECT_THAT(LoadError({dir_ + "/link.so"}), HasSubstr("link.so\" is a symbolic link"));
  fs::create_directory_symlink(dir_ + "/real", dir_ + "/linkdir");
  EXPECT_THAT(LoadError({dir_ + "/linkdir/a.so"}),
              HasSubstr("its directory \"" + dir_ + "/linkdir\" is a symbolic link"));
  EXPECT_THAT(LoadError({dir_ + "/real"}), HasSubstr("is a directory, not a regular file"));
  ASSERT_EQ(mkfifo((dir_ + "/fifo.so").c_str(), 0644), 0);
  EXPECT_THAT(LoadError({dir_ + "/fifo.so"}), HasSubstr("is a FIFO, not a regular file"));
}

TEST_F(PluginLoaderTest, RefusesALibraryWithAnotherAbiTagNamingBothTags) {
  const std::string error = LoadError({TEST_PLUGINS_OTHER_SDK});
  EXPECT_THAT(error, AllOf(HasSubstr(TEST_PLUGINS_OTHER_SDK), HasSubstr("ABI tag mismatch"),
                           HasSubstr("stowage-sdk 0.0.0-other"),
                           HasSubstr("\"" + std::string(framework::kPluginAbiTag) + "\"")));
}

TEST_F(PluginLoaderTest, RefusesLibrariesWithoutTheTagOrTheEntryPoint) {
  EXPECT_THAT(LoadError({TEST_NOT_A_PLUGIN}),
              AllOf(HasSubstr(TEST_NOT_A_PLUGIN), HasSubstr("no symbol stowage_plugin_abi_tag")));
  EXPECT_THAT(
      LoadError({TEST_PLUGINS_NO_ENTRY}),
      AllOf(HasSubstr(TEST_PLUGINS_NO_ENTRY), HasSubstr("no entry point stowage_plugin_register")));
}

TEST_F(PluginLoaderTest, ReportsDlopensErrorUnderTheRealPath) {
  const std::string text = dir_ + "/text.so";
  std::ofstream(text) << "not an ELF object\n";
  const std::string error = LoadError({text});
  EXPECT_THAT(error, AllOf(HasSubstr("dlopen: " + text), Not(HasSubstr("/proc/self/fd"))));
}

TEST_F(PluginLoaderTest, ReportsTheRegistrationFunctionsError) {
  EXPECT_THAT(LoadError({TEST_PLUGINS_FAILING}),
              AllOf(HasSubstr(TEST_PLUGINS_FAILING),
                    HasSubstr("registration failed: the test library refuses to register")));
}

TEST_F(PluginLoaderTest, RefusesANameTakenByTheBinaryOrAnotherLibrary) {
  framework::Registry registry;
  ASSERT_TRUE(registry.Register("RefuseLabelled", nullptr).ok());
  auto clash = LoadPluginLibraries({TEST_PLUGINS}, registry);
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.status().message(),
              HasSubstr("plugin \"RefuseLabelled\" is already registered by the scheduler binary"));
  EXPECT_FALSE(registry.Has("PreferScoreLabel"));  // nothing of a refused library is merged

  const std::string copy = Copy(TEST_PLUGINS, "copy.so");
  EXPECT_THAT(LoadError({TEST_PLUGINS, copy}),
              AllOf(HasSubstr("plugin library \"" + copy + "\": plugin \"PreferScoreLabel\""),
                    HasSubstr("already registered by plugin library \"" +
                              std::string(TEST_PLUGINS) + "\"")));
}

}  // namespace
}  // namespace stowage::plugin_loader::plugin_loader_test
