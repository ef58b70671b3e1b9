#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg/common/file.h"
#include "pkg/common/macros.h"
#include "stowage/common/backoff.h"
#include "stowage/common/clock.h"
#include "stowage/common/status.h"

namespace stowage::common_test {
namespace {

using std::chrono::milliseconds;

TEST(Status, OkIsCheapAndErrorsCarryCodeAndMessage) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.ToString(), "OK");
  Status e = NotFoundError("pod x");
  EXPECT_EQ(e.code(), StatusCode::kNotFound);
  EXPECT_EQ(e.ToString(), "NOT_FOUND: pod x");
  EXPECT_EQ(e.WithPrefix("get").message(), "get: pod x");
}

StatusOr<int> Half(int x) {
  if (x % 2) return InvalidArgumentError("odd");
  return x / 2;
}
StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(StatusOr, MacrosPropagateErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd");
  StatusOr<int> from_ok_status = OkStatus();
  EXPECT_EQ(from_ok_status.status().code(), StatusCode::kInternal);
}

TEST(Backoff, GrowsToTheCapAndResets) {
  Backoff b(milliseconds(100), milliseconds(350));
  EXPECT_EQ(b.Next(), milliseconds(100));
  EXPECT_EQ(b.Next(), milliseconds(200));
  EXPECT_EQ(b.Next(), milliseconds(350));
  EXPECT_EQ(b.Next(), milliseconds(350));
  b.Reset();
  EXPECT_EQ(b.Next(), milliseconds(100));
}

TEST(Backoff, JitterOnlyLengthens) {
  Backoff b(milliseconds(100), milliseconds(100), 2.0, 0.5);
  for (int i = 0; i < 100; ++i) {
    Duration d = b.Next();
    EXPECT_GE(d, milliseconds(100));
    EXPECT_LT(d, milliseconds(150));
  }
}

TEST(Base64, RoundTripsAndRejectsGarbage) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba",
                                                       "foobar", std::string("\0\xff", 2)}) {
    auto d = Base64Decode(Base64Encode(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(*Base64Decode("Zm9v\nYmE="), "fooba");
  EXPECT_FALSE(Base64Decode("Zm9v!").ok());
  EXPECT_FALSE(Base64Decode("Zg=a").ok());
}

TEST(ReadFile, RefusesOversizedFilesAndNamesMissingOnes) {
  EXPECT_THAT(ReadFile("/nonexistent/x").status().message(),
              ::testing::HasSubstr("/nonexistent/x"));
  EXPECT_EQ(ReadFile("/proc/self/exe", 10).status().code(), StatusCode::kResourceExhausted);
}

TEST(ScaleDuration, SaturatesInsteadOfOverflowing) {
  EXPECT_EQ(ScaleDuration(std::chrono::seconds(10), 1.2), std::chrono::seconds(12));
  EXPECT_EQ(ScaleDuration(std::chrono::hours(2562046), 1.2), Duration::max());
  EXPECT_EQ(ScaleDuration(Duration::max(), 1.0), Duration::max());
  EXPECT_EQ(ScaleDuration(std::chrono::hours(-2562046), 1.2), Duration::min());
}

// The cap holds whatever size the file reports: procfs says 0 bytes, /dev/zero never ends.
TEST(ReadFile, CapsWhatIsReadNotWhatTheFileReports) {
  auto status = ReadFile("/proc/self/status", 16);
  EXPECT_EQ(status.status().code(), StatusCode::kResourceExhausted) << status.status();
  auto whole = ReadFile("/proc/self/status", 1u << 20);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_THAT(*whole, ::testing::HasSubstr("Name:"));
  auto zero = ReadFile("/dev/zero", 1u << 20);
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(zero.status().message(), ::testing::HasSubstr("\"/dev/zero\" is a character device"));
}

// Opening a FIFO with no writer would block start-up forever; it is refused at once.
TEST(ReadFile, RefusesAFifoWithoutBlocking) {
  std::string path = ::testing::TempDir() + "/readfile-fifo-" + std::to_string(getpid());
  ::unlink(path.c_str());
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto r = ReadFile(path);
  ::unlink(path.c_str());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("\"" + path + "\" is a FIFO"));
  EXPECT_THAT(ReadFile("/").status().message(), ::testing::HasSubstr("is a directory"));
}

}  // namespace
}  // namespace stowage::common_test
