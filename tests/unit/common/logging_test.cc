// The klog text header, the component-base JSON lines, and -v/--vmodule filtering, captured
// through an ostream sink.
#include "pkg/common/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

namespace stowage::logging::logging_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LoggingTest : public ::testing::Test {
 protected:
  void Use(Config config) {
    out_.str("");
    ASSERT_TRUE(InitWithSink(config, std::make_shared<spdlog::sinks::ostream_sink_mt>(out_)).ok());
  }
  void Use(Format format, int v = 0) {
    Config c;
    c.format = format;
    c.verbosity = v;
    Use(c);
  }
  std::vector<std::string> Lines() {
    std::vector<std::string> lines;
    std::istringstream in(out_.str());
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  void TearDown() override { Init(0); }

  std::ostringstream out_;
};

TEST_F(LoggingTest, TextLineHasKlogHeader) {
  Use(Format::kText);
  const int line = __LINE__ + 1;  // the LOG_INFO line
  LOG_INFO("hello {}", "world");
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  // Lmmdd hh:mm:ss.uuuuuu, the thread id right-aligned in 7 columns, file:line] msg
  std::regex re(R"(I\d{4} \d{2}:\d{2}:\d{2}\.\d{6} [ \d]{7} logging_test\.cc:(\d+)\] hello world)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, re)) << lines[0];
  EXPECT_EQ(m[1], std::to_string(line));
  std::string tid = std::to_string(syscall(SYS_gettid));
  EXPECT_EQ(lines[0].substr(22, 7), std::string(7 - tid.size(), ' ') + tid) << lines[0];
  EXPECT_EQ(lines[0][29], ' ');
}

TEST_F(LoggingTest, TextSeverityLetters) {
  Use(Format::kText);
  LOG_WARN("w");
  LOG_ERROR("e");
  LOG_ERROR_ERR(InternalError("disk \"full\""), "write failed");
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0][0], 'W');
  EXPECT_EQ(lines[1][0], 'E');
  EXPECT_THAT(lines[1], ::testing::EndsWith("] e"));
  // klog's ErrorS: the message quoted, then err="..." with Go quoting.
  EXPECT_THAT(lines[2], ::testing::EndsWith(R"(] "write failed" err="disk \"full\"")"));
}

TEST_F(LoggingTest, TextDoesNotDoubleTrailingNewline) {
  Use(Format::kText);
  LOG_INFO("ends with newline\n");
  EXPECT_EQ(Lines().size(), 1u);
  EXPECT_EQ(out_.str().back(), '\n');
  EXPECT_NE(out_.str()[out_.str().size() - 2], '\n');
}

TEST_F(LoggingTest, JsonLineHasComponentBaseKeysInOrder) {
  Use(Format::kJson, 3);
  const int line = __LINE__ + 1;  // the LOG_INFO line
  LOG_INFO("hello \"q\"\n\t<&>");
  VLOG(3, "deeper");
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  std::regex re(
      R"re(\{"ts":\d+(\.\d+)?,"caller":"common/logging_test\.cc:(\d+)","msg":"(.*)","v":0\})re");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(lines[0], m, re)) << lines[0];
  EXPECT_EQ(m[2], std::to_string(line));
  // zap escapes quotes and control characters but not HTML characters.
  EXPECT_EQ(m[3], R"(hello \"q\"\n\t<&>)");
  auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["msg"], "hello \"q\"\n\t<&>");
  // ts is milliseconds since the epoch.
  double now_ms =
      std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  EXPECT_NEAR(j["ts"].get<double>(), now_ms, 60'000);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["v"], 3);
}

TEST_F(LoggingTest, JsonErrorsCarryErrAndNoV) {
  Use(Format::kJson);
  LOG_ERROR("plain");
  LOG_ERROR_ERR("connection refused", "cannot reach {}", "apiserver");
  LOG_WARN("careful");
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], ::testing::EndsWith(R"("msg":"plain"})"));
  EXPECT_THAT(lines[1],
              ::testing::EndsWith(R"("msg":"cannot reach apiserver","err":"connection refused"})"));
  EXPECT_THAT(lines[2], ::testing::EndsWith(R"("msg":"careful","v":0})"));
}

TEST_F(LoggingTest, JsonReplacesInvalidUtf8AndEscapesControlBytes) {
  Use(Format::kJson);
  LOG_INFO("bad \xff byte \x01 ok é");
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("msg":"bad \ufffd byte \u0001 ok é")"));
  EXPECT_TRUE(nlohmann::json::accept(lines[0])) << lines[0];
}

TEST_F(LoggingTest, VlogAppearsOnlyAtOrAboveVerbosity) {
  for (int v = 0; v <= 3; ++v) {
    Use(Format::kText, v);
    VLOG(1, "one");
    VLOG(2, "two");
    VLOG(3, "three");
    EXPECT_EQ(Lines().size(), static_cast<size_t>(v)) << "at -v=" << v;
  }
}

TEST_F(LoggingTest, VlogDoesNotEvaluateArgumentsWhenDisabled) {
  Use(Format::kText, 1);
  int evaluated = 0;
  VLOG(2, "{}", ++evaluated);
  EXPECT_EQ(evaluated, 0);
  VLOG(1, "{}", ++evaluated);
  EXPECT_EQ(evaluated, 1);
}

TEST_F(LoggingTest, VerbosityChangesAtRunTime) {
  Use(Format::kText, 0);
  VLOG(4, "hidden");
  SetVerbosity(4);
  EXPECT_EQ(Verbosity(), 4);
  VLOG(4, "shown");
  SetVerbosity(-3);
  EXPECT_EQ(Verbosity(), 0);
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr("shown"));
}

TEST_F(LoggingTest, VmoduleRaisesVerbosityForMatchingFiles) {
  Config c;
  c.vmodule = "logging_test=3";
  Use(c);
  VLOG(3, "by literal");
  VLOG(4, "too deep");
  ASSERT_TRUE(SetVModule("logging_*=5,other=1").ok());
  EXPECT_EQ(VModule(), "logging_*=5,other=1");
  VLOG(5, "by glob");
  ASSERT_TRUE(SetVModule("nothing=9").ok());
  VLOG(1, "not matched");
  ASSERT_TRUE(SetVModule("").ok());
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("by literal"));
  EXPECT_THAT(lines[1], HasSubstr("by glob"));
}

TEST_F(LoggingTest, VmoduleSyntaxErrorsAreKlogs) {
  EXPECT_EQ(SetVModule("a").message(), "syntax error: expect comma-separated list of filename=N");
  EXPECT_EQ(SetVModule("a=b").message(), "syntax error: expect comma-separated list of filename=N");
  EXPECT_EQ(SetVModule("a=1=2").message(),
            "syntax error: expect comma-separated list of filename=N");
  EXPECT_EQ(SetVModule("a=-1").message(), "negative value for vmodule level");
  EXPECT_TRUE(SetVModule("a=1,").ok());
  EXPECT_EQ(VModule(), "a=1");
  EXPECT_TRUE(SetVModule("a=0").ok());  // level 0 entries are dropped
  EXPECT_EQ(VModule(), "");
  Config bad;
  bad.vmodule = "x";
  EXPECT_FALSE(Init(bad).ok());
}

TEST_F(LoggingTest, LinesFromManyThreadsStayWhole) {
  Use(Format::kJson);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 50; ++i) LOG_INFO("thread {} line {}", t, i);
    });
  }
  for (auto& th : threads) th.join();
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 200u);
  for (const auto& l : lines) EXPECT_TRUE(nlohmann::json::accept(l)) << l;
}

// The plugin-facing stream macros of log.h write the same lines as the fmt macros: the caller's
// file and line, the severity letter, and the V level in JSON.
TEST_F(LoggingTest, StreamMacrosWriteKlogLines) {
  Use(Format::kText);
  const int line = __LINE__ + 1;
  STOWAGE_LOG(INFO) << "Decision: "
                    << "ns/p"
                    << " => " << 3;
  STOWAGE_LOG(WARNING) << "w";
  STOWAGE_LOG(ERROR) << "e";
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], ::testing::EndsWith("logging_test.cc:" + std::to_string(line) +
                                            "] Decision: ns/p => 3"));
  EXPECT_EQ(lines[1][0], 'W');
  EXPECT_EQ(lines[2][0], 'E');
}

TEST_F(LoggingTest, StreamVlogFiltersAndSkipsEvaluation) {
  Use(Format::kJson, 2);
  int evaluated = 0;
  STOWAGE_VLOG(3) << ++evaluated;
  if (evaluated == 0)
    STOWAGE_VLOG(2) << "shown " << ++evaluated;
  else
    ADD_FAILURE() << "the macro's else captured the caller's";
  EXPECT_EQ(evaluated, 1);
  auto lines = Lines();
  ASSERT_EQ(lines.size(), 1u);
  auto j = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(j["msg"], "shown 1");
  EXPECT_EQ(j["v"], 2);
}

TEST(LoggingFormat, ParseFormat) {
  EXPECT_EQ(*ParseFormat("text"), Format::kText);
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_FALSE(ParseFormat("yaml").ok());
}

}  // namespace
}  // namespace stowage::logging::logging_test
