// The CEL adapter of DynamicResources against the real bridge CMake builds: selectors compile,
// match the devices they describe, and a bad one fails with the engine's (upstream's) text.
#include "pkg/plugins/dynamic_resources/cel_compiler.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace stowage::plugins::dynamic_resources::cel_compiler_test {
namespace {

class CelSelectorCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string_view(STOWAGE_CEL_LIBRARY).empty()) GTEST_SKIP() << "built without Go";
  }
  CelSelectorCompiler compiler_{STOWAGE_CEL_LIBRARY};
};

TEST_F(CelSelectorCompilerTest, MatchesDevicesByDriverAndAttribute) {
  api::Device device;
  device.name = "gpu-0";
  device.attributes = api::Map<api::DeviceAttribute>({{"model", {.string_value = "A100"}}});
  auto by_driver = compiler_.Compile(R"(device.driver == "gpu.example.com")");
  ASSERT_TRUE(by_driver.ok()) << by_driver.status();
  EXPECT_TRUE(*(*by_driver)->Matches({"gpu.example.com", device}));
  EXPECT_FALSE(*(*by_driver)->Matches({"other.example.com", device}));
  auto by_model = compiler_.Compile(R"(device.attributes["gpu.example.com"].model == "A100")");
  ASSERT_TRUE(by_model.ok()) << by_model.status();
  EXPECT_TRUE(*(*by_model)->Matches({"gpu.example.com", device}));
}

TEST_F(CelSelectorCompilerTest, ErrorsCarryTheEngineText) {
  auto bad = compiler_.Compile("device.driver ==");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("Syntax error"), std::string::npos)
      << bad.status();
  auto not_bool = compiler_.Compile(R"("x")");
  ASSERT_FALSE(not_bool.ok());
  EXPECT_NE(std::string(not_bool.status().message()).find("must evaluate to bool"),
            std::string::npos)
      << not_bool.status();
  api::Device device;
  device.name = "gpu-0";
  auto missing = compiler_.Compile(R"(device.attributes["gpu.example.com"].model == "A100")");
  ASSERT_TRUE(missing.ok());
  auto r = (*missing)->Matches({"gpu.example.com", device});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("no such key"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace stowage::plugins::dynamic_resources::cel_compiler_test
