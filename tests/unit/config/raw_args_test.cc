// DecodeArgs: an out-of-tree plugin's RawArgs decoded into its struct, strictly, with errors
// naming the plugin and the field.
#include "stowage/plugin_config/raw_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stowage::config::raw_args_test {
namespace {

struct MyArgs {
  int64_t weight = 1;
  int32_t small = 0;
  double ratio = 0.5;
  bool enabled = false;
  std::string mode = "fast";
  std::vector<std::string> zones;
  void Describe(ArgsFields& f) {
    f.Int("weight", &weight)
        .Int32("small", &small)
        .Double("ratio", &ratio)
        .Bool("enabled", &enabled)
        .String("mode", &mode)
        .Strings("zones", &zones);
  }
};

std::string ErrorOf(const std::string& json) {
  auto got = DecodeArgs<MyArgs>("MyPlugin", RawArgs{json});
  return got.ok() ? "" : std::string(got.status().message());
}

TEST(RawArgs, EveryFieldKindDecodes) {
  auto got = DecodeArgs<MyArgs>(
      "MyPlugin", RawArgs{R"({"enabled":true,"mode":"slow","ratio":2,"small":-3,"weight":7,)"
                          R"("zones":["a","b"]})"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->weight, 7);
  EXPECT_EQ(got->small, -3);
  EXPECT_EQ(got->ratio, 2.0);
  EXPECT_TRUE(got->enabled);
  EXPECT_EQ(got->mode, "slow");
  EXPECT_EQ(got->zones, (std::vector<std::string>{"a", "b"}));
}

TEST(RawArgs, AbsentFieldsAndNoArgsKeepTheDefaults) {
  auto partial = DecodeArgs<MyArgs>("MyPlugin", RawArgs{R"({"mode":null,"weight":3})"});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->weight, 3);
  EXPECT_EQ(partial->mode, "fast");
  auto none = DecodeArgs<MyArgs>("MyPlugin", std::monostate{});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->weight, 1);
}

TEST(RawArgs, ErrorsNameThePluginAndTheField) {
  EXPECT_EQ(ErrorOf(R"({"weight":"x"})"),
            "plugin \"MyPlugin\": args: field \"weight\": expected an integer, got string \"x\"");
  EXPECT_EQ(ErrorOf(R"({"weight":1.5})"),
            "plugin \"MyPlugin\": args: field \"weight\": expected an integer, got number 1.5");
  EXPECT_EQ(ErrorOf(R"({"small":4294967296})"),
            "plugin \"MyPlugin\": args: field \"small\": integer out of range");
  EXPECT_EQ(ErrorOf(R"({"enabled":1})"),
            "plugin \"MyPlugin\": args: field \"enabled\": expected a boolean, got number 1");
  EXPECT_EQ(ErrorOf(R"({"mode":3})"),
            "plugin \"MyPlugin\": args: field \"mode\": expected a string, got number 3");
  EXPECT_EQ(ErrorOf(R"({"zones":["a",1]})"),
            "plugin \"MyPlugin\": args: field \"zones\": expected a list of strings, got array");
  EXPECT_EQ(ErrorOf(R"({"ratio":"1"})"),
            "plugin \"MyPlugin\": args: field \"ratio\": expected a number, got string \"1\"");
  EXPECT_EQ(ErrorOf(R"({"wieght":1})"), "plugin \"MyPlugin\": args: unknown field \"wieght\"");
  EXPECT_EQ(ErrorOf("[1]"), "plugin \"MyPlugin\": args: expected an object");
  EXPECT_EQ(ErrorOf("{"), "plugin \"MyPlugin\": args: not valid JSON");
}

TEST(RawArgs, TypedArgsAreNotRaw) {
  auto got = DecodeArgs<MyArgs>("MyPlugin", NodeResourcesFitArgs{});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "plugin \"MyPlugin\": args: expected untyped args, got NodeResourcesFitArgs");
}

}  // namespace
}  // namespace stowage::config::raw_args_test
