// The CEL engine against the real bridge built by CMake (STOWAGE_CEL_LIBRARY): the shared corpus
// of pkg/cel/go/testdata/selectors.txt, whose expected results and texts the pinned Go library
// gives (pkg/cel/go/selectors_test.go), then the engine's own behaviour: loading, errors,
// deadlines, threads.
#include "pkg/cel/engine.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace stowage::cel::engine_test {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

api::DeviceAttribute Str(std::string v) { return {.string_value = std::move(v)}; }
api::DeviceAttribute Int(int64_t v) { return {.int_value = v}; }
api::DeviceAttribute Bool(bool v) { return {.bool_value = v}; }
api::DeviceAttribute Version(std::string v) { return {.version_value = std::move(v)}; }
api::DeviceCapacity Cap(std::string_view q) { return {.value = *api::Quantity::Parse(q)}; }

constexpr std::string_view kDriver = "gpu.example.com";

// The device of selectors.txt, as pkg/cel/go/selectors_test.go declares it.
api::Device CorpusDevice() {
  api::Device d;
  d.name = "gpu-0";
  d.allow_multiple_allocations = true;
  d.attributes = api::Map<api::DeviceAttribute>({
      {"model", Str("a100")},
      {"gpu.example.com/index", Int(3)},
      {"driverVersion", Version("1.2.3")},
      {"healthy", Bool(true)},
      {"other.example.com/zone", Str("z1")},
  });
  d.capacity = api::Map<api::DeviceCapacity>({
      {"memory", Cap("80Gi")},
      {"milli", Cap("500m")},
      {"example.com/slots", Cap("4")},
  });
  return d;
}

// One engine for the whole binary, as stowage has one per process.
Engine& TheEngine() {
  static Engine* engine = new Engine(STOWAGE_CEL_LIBRARY);
  return *engine;
}

class CelEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string_view(STOWAGE_CEL_LIBRARY).empty()) GTEST_SKIP() << "built without Go";
  }
};

// What selectors.txt writes for an expression's outcome on device.
std::string Outcome(std::string_view expr, const api::Device& device) {
  StatusOr<Program> p = TheEngine().Compile(expr);
  if (!p.ok()) return "compile: " + std::string(p.status().message());
  StatusOr<bool> m = p->Matches(device, kDriver);
  if (!m.ok()) return "runtime: " + std::string(m.status().message());
  return *m ? "true" : "false";
}

std::string Unescape(std::string s) {
  for (size_t i = 0; (i = s.find("\\n", i)) != std::string::npos; ++i) s.replace(i, 2, "\n");
  return s;
}

TEST_F(CelEngineTest, CorpusSameAsThePinnedLibrary) {
  std::ifstream in(STOWAGE_CEL_CORPUS);
  ASSERT_TRUE(in) << STOWAGE_CEL_CORPUS;
  const api::Device device = CorpusDevice();
  int cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string expr = line.substr(tab + 1);
    EXPECT_EQ(Outcome(expr, device), Unescape(line.substr(0, tab))) << expr;
    ++cases;
  }
  EXPECT_GE(cases, 20);
}

TEST_F(CelEngineTest, CompileErrorsAreUpstreamsTexts) {
  StatusOr<Program> syntax = TheEngine().Compile("device.driver ==");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(syntax.status().message(),
              StartsWith("compilation failed: ERROR: <input>:1:17: Syntax error: "));
  StatusOr<Program> not_bool = TheEngine().Compile("device.driver");
  ASSERT_FALSE(not_bool.ok());
  EXPECT_THAT(not_bool.status().message(),
              HasSubstr("must evaluate to bool or the unknown type, not string"));
}

TEST_F(CelEngineTest, DomainlessNamesAreUnderTheDriversDomain) {
  const api::Device device = CorpusDevice();
  // "model" is given without a domain, "gpu.example.com/index" with the driver's.
  EXPECT_EQ(Outcome(R"(device.attributes["gpu.example.com"].model == "a100")", device), "true");
  EXPECT_EQ(Outcome(R"(device.attributes["gpu.example.com"].index == 3)", device), "true");
  // The same device from another driver: "model" moves to that driver's domain.
  StatusOr<Program> p =
      TheEngine().Compile(R"(device.attributes["other.example.com"].model == "a100")");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p->Matches(device, "other.example.com"), true);
  StatusOr<bool> elsewhere = p->Matches(device, kDriver);
  ASSERT_FALSE(elsewhere.ok());
  EXPECT_THAT(elsewhere.status().message(), StartsWith("no such key: model."));
}

TEST_F(CelEngineTest, RuntimeErrors) {
  const api::Device device = CorpusDevice();
  EXPECT_THAT(Outcome(R"(device.attributes["gpu.example.com"].missing == "x")", device),
              StartsWith("runtime: no such key: missing. consider using CEL optional chaining"));
  // An attribute with no value fails every evaluation of the device, as upstream's conversion does.
  api::Device empty = device;
  empty.attributes = api::Map<api::DeviceAttribute>({{"broken", api::DeviceAttribute{}}});
  EXPECT_EQ(Outcome(R"(device.driver == "gpu.example.com")", empty),
            "runtime: attribute broken: unsupported attribute value");
  api::Device bad_version = device;
  bad_version.attributes = api::Map<api::DeviceAttribute>({{"v", Version("one")}});
  EXPECT_THAT(Outcome("true", bad_version),
              StartsWith("runtime: attribute v: parse semantic version"));
}

// Six nested all() over ten elements: a million iterations, stopped by the cost limit.
constexpr char kCostly[] =
    "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, "
    "[0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, "
    "a + b + c + d + e + f >= 0))))))";

TEST_F(CelEngineTest, CostLimit) {
  StatusOr<Program> p = TheEngine().Compile(kCostly);
  ASSERT_TRUE(p.ok()) << p.status();
  StatusOr<bool> m = p->Matches(CorpusDevice(), kDriver);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "operation cancelled: actual cost limit exceeded");
  EXPECT_GT(Program::LastCostForTest(), 1000000u);
}

TEST_F(CelEngineTest, DeadlineStopsAnEvaluation) {
  StatusOr<Program> p = TheEngine().Compile(kCostly);
  ASSERT_TRUE(p.ok()) << p.status();
  StatusOr<bool> m = p->Matches(CorpusDevice(), kDriver, std::chrono::microseconds(1));
  ASSERT_FALSE(m.ok());
  // cel-go's text for a context that is done, as upstream's allocator would report it.
  EXPECT_EQ(m.status().message(),
            "operation interrupted: context deadline exceeded: context deadline exceeded");
  EXPECT_LT(Program::LastCostForTest(), 1000000u);
  // A generous deadline changes nothing for a cheap selector.
  StatusOr<Program> cheap = TheEngine().Compile(R"(device.driver == "gpu.example.com")");
  ASSERT_TRUE(cheap.ok());
  EXPECT_EQ(*cheap->Matches(CorpusDevice(), kDriver, std::chrono::seconds(10)), true);
}

TEST_F(CelEngineTest, ProgramsMoveAndOutliveTheirEngine) {
  std::vector<Program> programs;
  {
    Engine engine(STOWAGE_CEL_LIBRARY);
    StatusOr<Program> p = engine.Compile(R"(device.attributes["gpu.example.com"].healthy)");
    ASSERT_TRUE(p.ok()) << p.status();
    programs.push_back(*std::move(p));
  }
  Program moved = std::move(programs.back());
  EXPECT_EQ(programs.back().Matches(CorpusDevice(), kDriver).status().code(),
            StatusCode::kFailedPrecondition);
  programs.clear();
  EXPECT_EQ(*moved.Matches(CorpusDevice(), kDriver), true);
}

TEST_F(CelEngineTest, ConcurrentMatches) {
  StatusOr<Program> p = TheEngine().Compile(
      R"(cel.bind(d, device.attributes["gpu.example.com"], d.model == "a100" && d.index < 8))");
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<std::thread> threads;
  std::vector<int> matched(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      api::Device device = CorpusDevice();
      if (t % 2) device.attributes = api::Map<api::DeviceAttribute>({{"model", Str("h100")}});
      for (int i = 0; i < 200; ++i) {
        StatusOr<bool> m = p->Matches(device, kDriver);
        if (m.ok() && *m == (t % 2 == 0)) ++matched[t];
      }
    });
  }
  for (auto& t : threads) t.join();
  // Odd threads' devices lack "index" but the && stops at the model.
  EXPECT_EQ(matched, std::vector<int>(4, 200));
}

TEST_F(CelEngineTest, MissingLibraryNamesThePath) {
  Engine engine("/nonexistent/lib/stowage/libstowage_cel.so");
  StatusOr<Program> p = engine.Compile("true");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(p.status().message(),
              StartsWith("CEL library /nonexistent/lib/stowage/libstowage_cel.so: "));
  EXPECT_THAT(p.status().message(), HasSubstr("No such file or directory"));
  // The failure is kept, not retried.
  EXPECT_EQ(engine.Compile("true").status(), p.status());
  EXPECT_THAT(Engine("libstowage_cel.so").Compile("true").status().message(),
              HasSubstr("not an absolute path"));
}

TEST_F(CelEngineTest, LibraryWithoutTheBridgeIsRefused) {
  // Any shared library that is not the bridge: the C library this test runs on.
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&std::printf), &info), 0);
  Engine engine(info.dli_fname);
  StatusOr<Program> p = engine.Compile("true");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("no symbol stowage_cel_compile"));
}

TEST_F(CelEngineTest, DefaultLibraryPath) {
  setenv("STOWAGE_CEL_LIBRARY", "/opt/x/libstowage_cel.so", 1);
  EXPECT_EQ(Engine::DefaultLibraryPath(), "/opt/x/libstowage_cel.so");
  unsetenv("STOWAGE_CEL_LIBRARY");
  // build/tests/unit/unit_cel: build/tests/lib/stowage/, spelled without "..".
  EXPECT_THAT(Engine::DefaultLibraryPath(), EndsWith("/tests/lib/stowage/libstowage_cel.so"));
  EXPECT_THAT(Engine::DefaultLibraryPath(), Not(HasSubstr("..")));
  EXPECT_THAT(Engine::DefaultLibraryPath(), StartsWith("/"));
}

// Not a test: the cost of one Matches call, for docs/cel.md. Run with
// --gtest_also_run_disabled_tests --gtest_filter='*MatchesCost*'.
TEST_F(CelEngineTest, DISABLED_MatchesCost) {
  const char* selectors[] = {
      R"(device.driver == "gpu.example.com")",
      R"(device.attributes["gpu.example.com"].model == "a100")",
      R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
      R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0")))",
  };
  const api::Device device = CorpusDevice();
  constexpr int kCalls = 200000;
  for (const char* s : selectors) {
    StatusOr<Program> p = TheEngine().Compile(s);
    ASSERT_TRUE(p.ok()) << p.status();
    timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (int i = 0; i < kCalls; ++i) ASSERT_TRUE(*p->Matches(device, kDriver));
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    const double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
    std::printf("%8.0f CPU ns/call  %s\n", ns / kCalls, s);
  }
}

}  // namespace
}  // namespace stowage::cel::engine_test
