// The pflag-compatible parser of cmd/stowage/app/flags.h: syntax, every value type, pflag's
// error texts, change tracking, deprecation and the --help layout.
#include "cmd/stowage/app/flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace stowage::app::flags_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A small flag set with one flag of each built-in type.
struct Vars {
  std::string str = "def";
  bool flag = false;
  bool on = true;
  int64_t port = 10259;
  int32_t burst = 100;
  float qps = 50;
  std::chrono::nanoseconds ttl = std::chrono::seconds(10);
  std::vector<std::string> names = {"x-remote-user"};
  std::vector<int32_t> curves;
  std::map<std::string, std::string> labels;
  std::string ip = "0.0.0.0";
};

class FlagSetTest : public ::testing::Test {
 protected:
  FlagSetTest() {
    fs_.SetGroup("misc");
    fs_.String(&v_.str, "str", "a string");
    fs_.Bool(&v_.flag, "flag", "a bool");
    fs_.Bool(&v_.on, "on", "a bool that defaults to true");
    fs_.SetGroup("numbers");
    fs_.Int(&v_.port, "secure-port", "an int");
    fs_.Int32(&v_.burst, "burst", "an int32");
    fs_.Float32(&v_.qps, "qps", "a float32");
    fs_.Duration(&v_.ttl, "ttl", "a duration");
    fs_.SetGroup("lists");
    fs_.StringSlice(&v_.names, "names", "a string slice");
    fs_.Int32Slice(&v_.curves, "curves", "an int32 slice");
    fs_.StringToString(&v_.labels, "labels", "a map");
    fs_.IP(&v_.ip, "bind-address", "an ip");
  }

  Status Parse(std::vector<std::string> args) { return fs_.Parse(args); }

  Vars v_;
  FlagSet fs_{"test"};
};

TEST_F(FlagSetTest, LongFlagWithEqualsOrSeparateValue) {
  ASSERT_TRUE(Parse({"--str=a", "--burst", "7"}).ok());
  EXPECT_EQ(v_.str, "a");
  EXPECT_EQ(v_.burst, 7);
  EXPECT_TRUE(fs_.Changed("str"));
  EXPECT_TRUE(fs_.Changed("burst"));
  EXPECT_FALSE(fs_.Changed("qps"));
}

TEST_F(FlagSetTest, EmptyValueAfterEquals) {
  ASSERT_TRUE(Parse({"--str="}).ok());
  EXPECT_EQ(v_.str, "");
  EXPECT_TRUE(fs_.Changed("str"));
}

TEST_F(FlagSetTest, Booleans) {
  ASSERT_TRUE(Parse({"--flag", "--on=false"}).ok());
  EXPECT_TRUE(v_.flag);
  EXPECT_FALSE(v_.on);
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    Vars v;
    FlagSet fs("t");
    fs.Bool(&v.flag, "flag", "");
    ASSERT_TRUE(fs.Parse({std::string("--flag=") + t}).ok()) << t;
    EXPECT_TRUE(v.flag) << t;
  }
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    Vars v;
    v.flag = true;
    FlagSet fs("t");
    fs.Bool(&v.flag, "flag", "");
    ASSERT_TRUE(fs.Parse({std::string("--flag=") + f}).ok()) << f;
    EXPECT_FALSE(v.flag) << f;
  }
}

TEST_F(FlagSetTest, BoolDoesNotTakeTheNextArgument) {
  // pflag: "--flag false" is --flag=true followed by the positional argument "false".
  ASSERT_TRUE(Parse({"--flag", "false"}).ok());
  EXPECT_TRUE(v_.flag);
  EXPECT_THAT(fs_.args(), ElementsAre("false"));
}

TEST_F(FlagSetTest, BoolErrorNamesTheFlag) {
  EXPECT_EQ(Parse({"--on=maybe"}).message(),
            "invalid argument \"maybe\" for \"--on\" flag: strconv.ParseBool: parsing \"maybe\": "
            "invalid syntax");
}

TEST_F(FlagSetTest, IntUsesGoBaseZeroSyntax) {
  ASSERT_TRUE(Parse({"--secure-port=0x10"}).ok());
  EXPECT_EQ(v_.port, 16);
  ASSERT_TRUE(Parse({"--secure-port=10_259"}).ok());
  EXPECT_EQ(v_.port, 10259);
  ASSERT_TRUE(Parse({"--secure-port=010"}).ok());
  EXPECT_EQ(v_.port, 8);
  ASSERT_TRUE(Parse({"--secure-port=-1"}).ok());
  EXPECT_EQ(v_.port, -1);
}

TEST_F(FlagSetTest, IntErrors) {
  EXPECT_EQ(Parse({"--secure-port=abc"}).message(),
            "invalid argument \"abc\" for \"--secure-port\" flag: strconv.ParseInt: parsing "
            "\"abc\": invalid syntax");
  EXPECT_EQ(Parse({"--burst=99999999999"}).message(),
            "invalid argument \"99999999999\" for \"--burst\" flag: strconv.ParseInt: parsing "
            "\"99999999999\": value out of range");
  EXPECT_EQ(Parse({"--burst=08"}).message(),
            "invalid argument \"08\" for \"--burst\" flag: strconv.ParseInt: parsing \"08\": "
            "invalid syntax");
}

TEST_F(FlagSetTest, Int32Limits) {
  ASSERT_TRUE(Parse({"--burst=-2147483648"}).ok());
  EXPECT_EQ(v_.burst, INT32_MIN);
  ASSERT_TRUE(Parse({"--burst=2147483647"}).ok());
  EXPECT_EQ(v_.burst, INT32_MAX);
  EXPECT_FALSE(Parse({"--burst=2147483648"}).ok());
}

TEST_F(FlagSetTest, Float32) {
  ASSERT_TRUE(Parse({"--qps=12.5"}).ok());
  EXPECT_FLOAT_EQ(v_.qps, 12.5f);
  ASSERT_TRUE(Parse({"--qps=1e3"}).ok());
  EXPECT_FLOAT_EQ(v_.qps, 1000.f);
  EXPECT_EQ(Parse({"--qps=x"}).message(),
            "invalid argument \"x\" for \"--qps\" flag: strconv.ParseFloat: parsing \"x\": "
            "invalid syntax");
  EXPECT_EQ(Parse({"--qps=1e39"}).message(),
            "invalid argument \"1e39\" for \"--qps\" flag: strconv.ParseFloat: parsing "
            "\"1e39\": value out of range");
}

TEST_F(FlagSetTest, Duration) {
  ASSERT_TRUE(Parse({"--ttl=1m30s"}).ok());
  EXPECT_EQ(v_.ttl, std::chrono::seconds(90));
  ASSERT_TRUE(Parse({"--ttl", "250ms"}).ok());
  EXPECT_EQ(v_.ttl, std::chrono::milliseconds(250));
  EXPECT_EQ(Parse({"--ttl=15"}).message(),
            "invalid argument \"15\" for \"--ttl\" flag: time: missing unit in duration \"15\"");
}

TEST_F(FlagSetTest, StringSliceReplacesDefaultThenAppends) {
  ASSERT_TRUE(Parse({"--names=a,b", "--names", "c"}).ok());
  EXPECT_THAT(v_.names, ElementsAre("a", "b", "c"));
}

TEST_F(FlagSetTest, StringSliceIsCsv) {
  ASSERT_TRUE(Parse({"--names=\"a,b\",c"}).ok());
  EXPECT_THAT(v_.names, ElementsAre("a,b", "c"));
  EXPECT_EQ(fs_.Lookup("names")->value->String(), "[\"a,b\",c]");
  EXPECT_EQ(Parse({"--names=a\"b"}).message(),
            "invalid argument \"a\\\"b\" for \"--names\" flag: parse error on line 1, column 2: "
            "bare \" in non-quoted-field");
}

TEST_F(FlagSetTest, StringSliceEmptyValueClears) {
  ASSERT_TRUE(Parse({"--names="}).ok());
  EXPECT_TRUE(v_.names.empty());
}

TEST_F(FlagSetTest, Int32Slice) {
  ASSERT_TRUE(Parse({"--curves=23,0x1d", "--curves=24"}).ok());
  EXPECT_THAT(v_.curves, ElementsAre(23, 29, 24));
  EXPECT_EQ(fs_.Lookup("curves")->value->String(), "[23,29,24]");
  EXPECT_EQ(Parse({"--curves=1,,2"}).message(),
            "invalid argument \"1,,2\" for \"--curves\" flag: strconv.ParseInt: parsing \"\": "
            "invalid syntax");
}

TEST_F(FlagSetTest, StringToString) {
  ASSERT_TRUE(Parse({"--labels=a=1,b=2", "--labels=c=3"}).ok());
  EXPECT_EQ(v_.labels, (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(fs_.Lookup("labels")->value->String(), "[a=1,b=2,c=3]");
}

TEST_F(FlagSetTest, StringToStringWithOneEqualsKeepsCommas) {
  // pflag treats a value with a single '=' as one pair, so list values need no quoting.
  ASSERT_TRUE(Parse({"--labels=metric1,label1=v1,v2"}).ok());
  EXPECT_EQ(v_.labels, (std::map<std::string, std::string>{{"metric1,label1", "v1,v2"}}));
  EXPECT_EQ(Parse({"--labels=abc"}).message(),
            "invalid argument \"abc\" for \"--labels\" flag: abc must be formatted as key=value");
  EXPECT_EQ(Parse({"--labels=a=1,b=2,c"}).message(),
            "invalid argument \"a=1,b=2,c\" for \"--labels\" flag: c must be formatted as "
            "key=value");
}

TEST_F(FlagSetTest, IP) {
  ASSERT_TRUE(Parse({"--bind-address=10.0.0.1"}).ok());
  EXPECT_EQ(v_.ip, "10.0.0.1");
  ASSERT_TRUE(Parse({"--bind-address=0:0:0:0:0:0:0:1"}).ok());
  EXPECT_EQ(v_.ip, "::1");
  ASSERT_TRUE(Parse({"--bind-address=::ffff:1.2.3.4"}).ok());
  EXPECT_EQ(v_.ip, "1.2.3.4");
  ASSERT_TRUE(Parse({"--bind-address= 192.168.0.1 "}).ok());
  EXPECT_EQ(v_.ip, "192.168.0.1");
  // An empty value leaves the address as it was, as pflag does.
  ASSERT_TRUE(Parse({"--bind-address="}).ok());
  EXPECT_EQ(v_.ip, "192.168.0.1");
  EXPECT_EQ(Parse({"--bind-address=abc"}).message(),
            "invalid argument \"abc\" for \"--bind-address\" flag: failed to parse IP: \"abc\"");
  EXPECT_FALSE(Parse({"--bind-address=010.1.1.1"}).ok());
}

TEST_F(FlagSetTest, UnknownFlags) {
  EXPECT_EQ(Parse({"--nope"}).message(), "unknown flag: --nope");
  EXPECT_EQ(Parse({"--nope=1"}).message(), "unknown flag: --nope");
  EXPECT_EQ(Parse({"-x"}).message(), "unknown shorthand flag: 'x' in -x");
}

TEST_F(FlagSetTest, MissingValue) {
  EXPECT_EQ(Parse({"--str"}).message(), "flag needs an argument: --str");
}

TEST_F(FlagSetTest, BadSyntax) {
  EXPECT_EQ(Parse({"---x"}).message(), "bad flag syntax: ---x");
  EXPECT_EQ(Parse({"--=x"}).message(), "bad flag syntax: --=x");
}

TEST_F(FlagSetTest, UnderscoresNormalizeToDashes) {
  ASSERT_TRUE(Parse({"--secure_port=1"}).ok());
  EXPECT_EQ(v_.port, 1);
  EXPECT_TRUE(fs_.Changed("secure-port"));
}

TEST_F(FlagSetTest, DoubleDashEndsFlags) {
  ASSERT_TRUE(Parse({"a", "--str=x", "--", "--flag", "b"}).ok());
  EXPECT_EQ(v_.str, "x");
  EXPECT_FALSE(v_.flag);
  EXPECT_THAT(fs_.args(), ElementsAre("a", "--flag", "b"));
}

TEST(FlagSetShorthand, Forms) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"-v3"}, {"-v=3"}, {"-v", "3"}, {"--v=3"}}) {
    int32_t v = 0;
    FlagSet fs("t");
    fs.Int32(&v, "v", "verbosity").shorthand = 'v';
    ASSERT_TRUE(fs.Parse(args).ok()) << args[0];
    EXPECT_EQ(v, 3) << args[0];
  }
}

TEST(FlagSetShorthand, Errors) {
  int32_t v = 0;
  bool h = false;
  FlagSet fs("t");
  fs.Int32(&v, "v", "").shorthand = 'v';
  fs.Bool(&h, "help", "").shorthand = 'h';
  EXPECT_EQ(fs.Parse({"-v"}).message(), "flag needs an argument: 'v' in -v");
  EXPECT_EQ(fs.Parse({"-v=x"}).message(),
            "invalid argument \"x\" for \"-v, --v\" flag: strconv.ParseInt: parsing \"x\": "
            "invalid syntax");
  EXPECT_EQ(fs.Parse({"-hx"}).message(), "unknown shorthand flag: 'x' in -x");
  EXPECT_TRUE(h);
}

TEST(FlagSetShorthand, CombinedBooleansThenValue) {
  int32_t v = 0;
  bool h = false;
  FlagSet fs("t");
  fs.Int32(&v, "v", "").shorthand = 'v';
  fs.Bool(&h, "help", "").shorthand = 'h';
  ASSERT_TRUE(fs.Parse({"-hv5"}).ok());
  EXPECT_TRUE(h);
  EXPECT_EQ(v, 5);
}

TEST(FlagSetDeprecated, WarnsOnUseAndHidesFromHelp) {
  std::string old_value, new_value;
  FlagSet fs("t");
  fs.SetGroup("misc");
  fs.String(&new_value, "new", "the new flag");
  fs.String(&old_value, "old", "the old flag").deprecated = "use --new instead";
  std::ostringstream out;
  fs.SetOutput(&out);
  ASSERT_TRUE(fs.Parse({"--old=x"}).ok());
  EXPECT_EQ(old_value, "x");
  EXPECT_EQ(out.str(), "Flag --old has been deprecated, use --new instead\n");
  ASSERT_TRUE(fs.Parse({"--new=y"}).ok());
  EXPECT_EQ(out.str(), "Flag --old has been deprecated, use --new instead\n");
  EXPECT_THAT(fs.Usage(), HasSubstr("--new string"));
  EXPECT_THAT(fs.Usage(), ::testing::Not(HasSubstr("--old")));
}

TEST(FlagSetUsage, PflagLayout) {
  std::string config, ct = "application/vnd.kubernetes.protobuf";
  bool profiling = true, sharing = false;
  int64_t port = 10259;
  std::chrono::nanoseconds ttl = std::chrono::seconds(10);
  std::vector<std::string> paths = {"/healthz", "/readyz"};
  std::vector<std::string> empty;
  FlagSet fs("t");
  fs.SetGroup("misc");
  fs.String(&config, "config", "The path to the configuration file.");
  fs.String(&ct, "kube-api-content-type", "content type.");
  fs.Bool(&profiling, "profiling", "enable profiling.");
  fs.Bool(&sharing, "permit-port-sharing", "If true, SO_REUSEPORT.");
  fs.Int(&port, "secure-port", "The port.");
  fs.Duration(&ttl, "ttl", "The TTL.");
  fs.StringSlice(&paths, "paths", "Paths.");
  fs.StringSlice(&empty, "names", "Names.\nMore.");
  EXPECT_EQ(fs.Usage(),
            "\nMisc flags:\n\n"
            "      --config string                  The path to the configuration file.\n"
            "      --kube-api-content-type string   content type. (default "
            "\"application/vnd.kubernetes.protobuf\")\n"
            "      --names strings                  Names.\n"
            "                                       More.\n"
            "      --paths strings                  Paths. (default [/healthz,/readyz])\n"
            "      --permit-port-sharing            If true, SO_REUSEPORT.\n"
            "      --profiling                      enable profiling. (default true)\n"
            "      --secure-port int                The port. (default 10259)\n"
            "      --ttl duration                   The TTL. (default 10s)\n");
}

TEST(FlagSetUsage, GroupsInFirstUseOrder) {
  std::string a, b, c;
  FlagSet fs("t");
  fs.SetGroup("zeta");
  fs.String(&a, "a", "A");
  fs.SetGroup("alpha");
  fs.String(&b, "b", "B");
  fs.SetGroup("zeta");
  fs.String(&c, "c", "C");
  const std::string usage = fs.Usage();
  EXPECT_LT(usage.find("Zeta flags:"), usage.find("Alpha flags:"));
  EXPECT_THAT(fs.GroupUsage("zeta"), HasSubstr("--c string"));
}

TEST(FlagSetUsage, TerminalWidthPutsHelpOnItsOwnLine) {
  std::string config;
  FlagSet fs("t");
  fs.SetGroup("misc");
  fs.String(&config, "config", "The path to the configuration file.");
  // cliflag.PrintSections' layout for a terminal of 100 columns.
  EXPECT_EQ(fs.Usage(100),
            "\nMisc flags:\n\n"
            "      --config string" +
                std::string(70, ' ') + "\n" + std::string(16, ' ') +
                "The path to the configuration file.\n");
}

TEST(GoStrconv, ParseIntAndUint) {
  EXPECT_EQ(*ParseGoInt("0b11", 0, 64), 3);
  EXPECT_EQ(*ParseGoInt("0o17", 0, 64), 15);
  EXPECT_EQ(*ParseGoInt("-0x10", 0, 64), -16);
  EXPECT_EQ(*ParseGoInt("+5", 0, 64), 5);
  EXPECT_FALSE(ParseGoInt("_1", 0, 64).ok());
  EXPECT_FALSE(ParseGoInt("1_", 0, 64).ok());
  EXPECT_FALSE(ParseGoInt("0x", 0, 64).ok());
  EXPECT_FALSE(ParseGoInt("", 0, 64).ok());
  EXPECT_EQ(*ParseGoInt("-9223372036854775808", 0, 64), INT64_MIN);
  EXPECT_EQ(ParseGoInt("9223372036854775808", 0, 64).status().message(),
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range");
  EXPECT_EQ(*ParseGoUint("2147483647", 31), 2147483647u);
  EXPECT_EQ(ParseGoUint("2147483648", 31).status().message(),
            "strconv.ParseUint: parsing \"2147483648\": value out of range");
  EXPECT_EQ(ParseGoUint("-1", 31).status().message(),
            "strconv.ParseUint: parsing \"-1\": invalid syntax");
  EXPECT_EQ(ParseGoUint("+1", 31).status().message(),
            "strconv.ParseUint: parsing \"+1\": invalid syntax");
}

TEST(GoStrconv, ParseFloat32) {
  EXPECT_FLOAT_EQ(*ParseGoFloat32(".5"), 0.5f);
  EXPECT_FLOAT_EQ(*ParseGoFloat32("5."), 5.f);
  EXPECT_FLOAT_EQ(*ParseGoFloat32("1_000"), 1000.f);
  EXPECT_FLOAT_EQ(*ParseGoFloat32("0x1p4"), 16.f);
  EXPECT_TRUE(std::isinf(*ParseGoFloat32("-Infinity")));
  EXPECT_TRUE(std::isnan(*ParseGoFloat32("nan")));
  EXPECT_EQ(*ParseGoFloat32("1e-50"), 0.f);
  for (const char* bad : {"0x10", "1e", "", "0b101", "1__0", "+nan"}) {
    EXPECT_FALSE(ParseGoFloat32(bad).ok()) << bad;
  }
}

TEST(GoStrconv, FormatFloat32) {
  EXPECT_EQ(FormatGoFloat32(50), "50");
  EXPECT_EQ(FormatGoFloat32(1.5), "1.5");
  EXPECT_EQ(FormatGoFloat32(100000), "100000");
  EXPECT_EQ(FormatGoFloat32(1e6), "1e+06");
  EXPECT_EQ(FormatGoFloat32(1234567), "1.234567e+06");
  EXPECT_EQ(FormatGoFloat32(0.0001f), "0.0001");
  EXPECT_EQ(FormatGoFloat32(0.00001f), "1e-05");
  EXPECT_EQ(FormatGoFloat32(100.25f), "100.25");
  EXPECT_EQ(FormatGoFloat32(0), "0");
}

TEST(GoCsv, ReadRecord) {
  EXPECT_THAT(*ReadCsvRecord("a,,b"), ElementsAre("a", "", "b"));
  EXPECT_THAT(*ReadCsvRecord("\"a\"\"b\""), ElementsAre("a\"b"));
  EXPECT_EQ(ReadCsvRecord("\"a\"b").status().message(),
            "parse error on line 1, column 3: extraneous or missing \" in quoted-field");
  EXPECT_EQ(ReadCsvRecord("\"a").status().message(),
            "parse error on line 1, column 3: extraneous or missing \" in quoted-field");
  EXPECT_EQ(ReadCsvRecord("x,\"y").status().message(),
            "parse error on line 1, column 5: extraneous or missing \" in quoted-field");
  EXPECT_EQ(ReadCsvRecord(" \"a\"").status().message(),
            "parse error on line 1, column 2: bare \" in non-quoted-field");
}

TEST(GoCsv, WriteRecord) {
  EXPECT_EQ(WriteCsvRecord({"a", "b c", " d", "e,f", "g\"h", ""}),
            "a,b c,\" d\",\"e,f\",\"g\"\"h\",");
}

TEST(GoNet, CanonicalIP) {
  EXPECT_EQ(*CanonicalIP("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
  EXPECT_EQ(*CanonicalIP("::"), "::");
  EXPECT_EQ(*CanonicalIP("::ffff:0:0"), "0.0.0.0");
  EXPECT_FALSE(CanonicalIP("fe80::1%eth0"));
  EXPECT_FALSE(CanonicalIP(""));
}

}  // namespace
}  // namespace stowage::app::flags_test
