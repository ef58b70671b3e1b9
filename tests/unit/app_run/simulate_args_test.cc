// The arguments of `stowage simulate` and `stowage snapshot`: the snapshot first, repeatable
// changes, the output and seed taken out, every other argument left for the scheduler's flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cmd/stowage/app/simulate.h"

namespace stowage::app::simulate_args_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SimulateArgs, TakesItsOwnAndLeavesTheSchedulersFlags) {
  std::vector<std::string> args = {"simulate",     "snap.yaml", "--add",       "a.yaml",
                                   "--add=b.yaml", "--config",  "cfg.yaml",    "--drain",
                                   "n1",           "--remove",  "node/n2",     "-o",
                                   "json",         "--seed=42", "--cordon=n3", "-v=2"};
  auto r = TakeSimulateArgs(args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->snapshot, "snap.yaml");
  EXPECT_THAT(r->add, ElementsAre("a.yaml", "b.yaml"));
  EXPECT_THAT(r->drain, ElementsAre("n1"));
  EXPECT_THAT(r->remove, ElementsAre("node/n2"));
  EXPECT_THAT(r->cordon, ElementsAre("n3"));
  EXPECT_TRUE(r->json);
  EXPECT_EQ(r->seed, 42u);
  EXPECT_THAT(args, ElementsAre("--config", "cfg.yaml", "-v=2"));
}

TEST(SimulateArgs, WrongArgumentsSayWhat) {
  std::vector<std::string> args = {"simulate", "--config", "cfg.yaml"};
  EXPECT_THAT(std::string(TakeSimulateArgs(args).status().message()),
              HasSubstr("the snapshot comes first"));
  args = {"simulate", "s.yaml", "--seed", "x1"};
  EXPECT_THAT(std::string(TakeSimulateArgs(args).status().message()),
              HasSubstr("--seed \"x1\" is not a whole number"));
  args = {"simulate", "s.yaml", "-o", "yaml"};
  EXPECT_THAT(std::string(TakeSimulateArgs(args).status().message()),
              HasSubstr("unknown output format \"yaml\" (table or json)"));
  args = {"simulate", "s.yaml", "--add"};
  EXPECT_THAT(std::string(TakeSimulateArgs(args).status().message()), HasSubstr("--add needs"));
}

TEST(SnapshotArgs, FileAndFormat) {
  std::vector<std::string> args = {"snapshot", "-o", "out.yaml", "--format=json", "--kubeconfig=k"};
  auto r = TakeSnapshotArgs(args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->file, "out.yaml");
  EXPECT_TRUE(r->json);
  EXPECT_THAT(args, ElementsAre("--kubeconfig=k"));
  args = {"snapshot"};
  EXPECT_EQ(TakeSnapshotArgs(args)->file, "-");
}

}  // namespace
}  // namespace stowage::app::simulate_args_test
