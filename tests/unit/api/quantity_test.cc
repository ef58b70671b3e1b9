// Tests for Quantity against Kubernetes' own expectations.
//
// The tables below come from upstream's
// staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go (TestQuantityParse,
// TestQuantityString, TestQuantityParseEmit, TestParseQuantity, TestNewSet, TestMilliNewSet,
// TestQuantityCmp and the invalid-input list), with the canonical strings, formats and values
// checked against the v1.36 Go code itself (k8s.io/apimachinery v0.36.3). Where a value does not
// fit int64, upstream's Value()/MilliValue() return 0 or a wrapped number; ours saturate, and
// those rows say so.
#include "stowage/api/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace stowage::api::quantity_test {

// Lets gtest print a Quantity in failure messages. Internal linkage keeps it from clashing with
// another test file's printer.
static void PrintTo(const Quantity& q, std::ostream* os) { *os << q.String(); }

namespace {

using F = Quantity::Format;
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinInt64 = std::numeric_limits<int64_t>::min();

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

struct Row {
  const char* input;
  const char* canonical;  // String()
  int64_t value;          // Value()
  int64_t milli;          // MilliValue()
  F format;
};

const char* FormatName(F f) {
  switch (f) {
    case F::kDecimalSI: return "DecimalSI";
    case F::kBinarySI: return "BinarySI";
    case F::kDecimalExponent: return "DecimalExponent";
  }
  return "?";
}

void ExpectRow(const Row& row) {
  SCOPED_TRACE(std::string("input \"") + row.input + "\"");
  StatusOr<Quantity> q = Quantity::Parse(row.input);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->String(), row.canonical);
  EXPECT_EQ(q->Value(), row.value);
  EXPECT_EQ(q->MilliValue(), row.milli);
  EXPECT_STREQ(FormatName(q->format()), FormatName(row.format));

  // The canonical form parses back to the same value and prints the same way.
  StatusOr<Quantity> again = Quantity::Parse(q->String());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *q);
  EXPECT_EQ(again->String(), row.canonical);
}

// TestQuantityParse: input, then what upstream parses it to.
const std::vector<Row>& ParseRows() {
  static const std::vector<Row> rows = {
      {"0", "0", 0, 0, F::kDecimalSI},
      {"0n", "0", 0, 0, F::kDecimalSI},
      {"0u", "0", 0, 0, F::kDecimalSI},
      {"0m", "0", 0, 0, F::kDecimalSI},
      {"0Ki", "0", 0, 0, F::kBinarySI},
      {"0k", "0", 0, 0, F::kDecimalSI},
      {"0Mi", "0", 0, 0, F::kBinarySI},
      {"0M", "0", 0, 0, F::kDecimalSI},
      {"0Gi", "0", 0, 0, F::kBinarySI},
      {"0G", "0", 0, 0, F::kDecimalSI},
      {"0Ti", "0", 0, 0, F::kBinarySI},
      {"0T", "0", 0, 0, F::kDecimalSI},
      {"1", "1", 1, 1000, F::kDecimalSI},
      {"1Ki", "1Ki", 1024, 1024000, F::kBinarySI},
      {"8Ki", "8Ki", 8192, 8192000, F::kBinarySI},
      {"7Mi", "7Mi", 7340032, 7340032000, F::kBinarySI},
      {"6Gi", "6Gi", 6442450944, 6442450944000, F::kBinarySI},
      {"5Ti", "5Ti", 5497558138880, 5497558138880000, F::kBinarySI},
      {"4Pi", "4Pi", 4503599627370496, 4503599627370496000, F::kBinarySI},
      // upstream MilliValue() overflows
      {"3Ei", "3Ei", 3458764513820540928, kMaxInt64, F::kBinarySI},
      {"10Ti", "10Ti", 10995116277760, 10995116277760000, F::kBinarySI},
      {"100Ti", "100Ti", 109951162777600, 109951162777600000, F::kBinarySI},
      {"5n", "5n", 1, 1, F::kDecimalSI},
      {"4u", "4u", 1, 1, F::kDecimalSI},
      {"3m", "3m", 1, 3, F::kDecimalSI},
      {"9", "9", 9, 9000, F::kDecimalSI},
      {"8k", "8k", 8000, 8000000, F::kDecimalSI},
      {"50k", "50k", 50000, 50000000, F::kDecimalSI},
      {"7M", "7M", 7000000, 7000000000, F::kDecimalSI},
      {"6G", "6G", 6000000000, 6000000000000, F::kDecimalSI},
      {"5T", "5T", 5000000000000, 5000000000000000, F::kDecimalSI},
      {"40T", "40T", 40000000000000, 40000000000000000, F::kDecimalSI},
      {"300T", "300T", 300000000000000, 300000000000000000, F::kDecimalSI},
      {"2P", "2P", 2000000000000000, 2000000000000000000, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"1E", "1E", 1000000000000000000, kMaxInt64, F::kDecimalSI},
      {"1E-3", "1e-3", 1, 1, F::kDecimalExponent},
      {"1e3", "1e3", 1000, 1000000, F::kDecimalExponent},
      {"1E6", "1e6", 1000000, 1000000000, F::kDecimalExponent},
      {"1e9", "1e9", 1000000000, 1000000000000, F::kDecimalExponent},
      {"1E12", "1e12", 1000000000000, 1000000000000000, F::kDecimalExponent},
      {"1e15", "1e15", 1000000000000000, 1000000000000000000, F::kDecimalExponent},
      // upstream MilliValue() overflows
      {"1E18", "1e18", 1000000000000000000, kMaxInt64, F::kDecimalExponent},
      {"1e14", "100e12", 100000000000000, 100000000000000000, F::kDecimalExponent},
      {"1e13", "10e12", 10000000000000, 10000000000000000, F::kDecimalExponent},
      {"100.035k", "100035", 100035, 100035000, F::kDecimalSI},
      {"0.001", "1m", 1, 1, F::kDecimalSI},
      {"0.0005k", "500m", 1, 500, F::kDecimalSI},
      {"0.005", "5m", 1, 5, F::kDecimalSI},
      {"0.05", "50m", 1, 50, F::kDecimalSI},
      {"0.5", "500m", 1, 500, F::kDecimalSI},
      {"0.00050k", "500m", 1, 500, F::kDecimalSI},
      {"0.00500", "5m", 1, 5, F::kDecimalSI},
      {"0.05000", "50m", 1, 50, F::kDecimalSI},
      {"0.50000", "500m", 1, 500, F::kDecimalSI},
      {"0.5e0", "500e-3", 1, 500, F::kDecimalExponent},
      {"0.5e-1", "50e-3", 1, 50, F::kDecimalExponent},
      {"0.5e-2", "5e-3", 1, 5, F::kDecimalExponent},
      {"10.035M", "10035k", 10035000, 10035000000, F::kDecimalSI},
      {"1.2e3", "1200", 1200, 1200000, F::kDecimalExponent},
      {"1.3E+6", "1300e3", 1300000, 1300000000, F::kDecimalExponent},
      {"1.40e9", "1400e6", 1400000000, 1400000000000, F::kDecimalExponent},
      {"1.53E12", "1530e9", 1530000000000, 1530000000000000, F::kDecimalExponent},
      {"1.6e15", "1600e12", 1600000000000000, 1600000000000000000, F::kDecimalExponent},
      // upstream MilliValue() overflows
      {"1.7E18", "1700e15", 1700000000000000000, kMaxInt64, F::kDecimalExponent},
      {"9.01", "9010m", 10, 9010, F::kDecimalSI},
      {"8.1k", "8100", 8100, 8100000, F::kDecimalSI},
      {"7.123456M", "7123456", 7123456, 7123456000, F::kDecimalSI},
      {"6.987654321G", "6987654321", 6987654321, 6987654321000, F::kDecimalSI},
      {"5.444T", "5444G", 5444000000000, 5444000000000000, F::kDecimalSI},
      {"40.1T", "40100G", 40100000000000, 40100000000000000, F::kDecimalSI},
      {"300.2T", "300200G", 300200000000000, 300200000000000000, F::kDecimalSI},
      {"2.5P", "2500T", 2500000000000000, 2500000000000000000, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"1.01E", "1010P", 1010000000000000000, kMaxInt64, F::kDecimalSI},
      {"3.001n", "4n", 1, 1, F::kDecimalSI},
      {"1.1E-9", "2e-9", 1, 1, F::kDecimalExponent},
      {"0.0000000001", "1n", 1, 1, F::kDecimalSI},
      {"0.0000000005", "1n", 1, 1, F::kDecimalSI},
      {"0.00000000050", "1n", 1, 1, F::kDecimalSI},
      {"0.5e-9", "1e-9", 1, 1, F::kDecimalExponent},
      {"0.9n", "1n", 1, 1, F::kDecimalSI},
      {"0.00000012345", "124n", 1, 1, F::kDecimalSI},
      {"0.00000012354", "124n", 1, 1, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"9Ei", "9223372036854775807", kMaxInt64, kMaxInt64, F::kBinarySI},
      // upstream MilliValue() overflows
      {"9223372036854775807Ki", "9223372036854775807", kMaxInt64, kMaxInt64, F::kBinarySI},
      // upstream Value() overflows
      {"12E", "12E", kMaxInt64, kMaxInt64, F::kDecimalSI},
      {"100.035Ki", "102435840m", 102436, 102435840, F::kBinarySI},
      {"0.5Mi", "512Ki", 524288, 524288000, F::kBinarySI},
      {"0.05Gi", "53687091200m", 53687092, 53687091200, F::kBinarySI},
      {"0.025Ti", "27487790694400m", 27487790695, 27487790694400, F::kBinarySI},
      {"0.000000000001Ki", "2n", 1, 1, F::kDecimalSI},
      {".001", "1m", 1, 1, F::kDecimalSI},
      {".0001k", "100m", 1, 100, F::kDecimalSI},
      {"1.", "1", 1, 1000, F::kDecimalSI},
      {"1.G", "1G", 1000000000, 1000000000000, F::kDecimalSI},
  };
  return rows;
}

TEST(QuantityTest, ParsesUpstreamTable) {
  for (const Row& row : ParseRows()) ExpectRow(row);
}

// Upstream runs its parse table again with a leading "-" and a leading "+".
TEST(QuantityTest, ParsesUpstreamTableWithSigns) {
  for (const Row& row : ParseRows()) {
    SCOPED_TRACE(std::string("input \"") + row.input + "\"");
    StatusOr<Quantity> plain = Quantity::Parse(row.input);
    StatusOr<Quantity> negative = Quantity::Parse(std::string("-") + row.input);
    StatusOr<Quantity> positive = Quantity::Parse(std::string("+") + row.input);
    ASSERT_TRUE(plain.ok() && negative.ok() && positive.ok());
    EXPECT_EQ(negative->Nanos(), -plain->Nanos());
    EXPECT_EQ(negative->format(), plain->format());
    const std::string canonical = row.canonical;
    EXPECT_EQ(negative->String(), canonical == "0" ? canonical : "-" + canonical);
    EXPECT_EQ(*positive, *plain);
    EXPECT_EQ(positive->format(), plain->format());
    EXPECT_EQ(positive->String(), canonical);
  }
}

// TestQuantityString (expected strings and their alternates) and TestQuantityParseEmit.
TEST(QuantityTest, CanonicalStrings) {
  static const std::vector<Row> rows = {
      {"1Gi", "1Gi", 1073741824, 1073741824000, F::kBinarySI},
      {"1024Mi", "1Gi", 1073741824, 1073741824000, F::kBinarySI},
      {"300Mi", "300Mi", 314572800, 314572800000, F::kBinarySI},
      {"307200Ki", "300Mi", 314572800, 314572800000, F::kBinarySI},
      {"6Ki", "6Ki", 6144, 6144000, F::kBinarySI},
      {"1001Gi", "1001Gi", 1074815565824, 1074815565824000, F::kBinarySI},
      {"1025024Mi", "1001Gi", 1074815565824, 1074815565824000, F::kBinarySI},
      {"1Ti", "1Ti", 1099511627776, 1099511627776000, F::kBinarySI},
      {"1024Gi", "1Ti", 1099511627776, 1099511627776000, F::kBinarySI},
      {"5", "5", 5, 5000, F::kDecimalSI},
      {"5000m", "5", 5, 5000, F::kDecimalSI},
      {"500m", "500m", 1, 500, F::kDecimalSI},
      {"0.5", "500m", 1, 500, F::kDecimalSI},
      {"1G", "1G", 1000000000, 1000000000000, F::kDecimalSI},
      {"1000M", "1G", 1000000000, 1000000000000, F::kDecimalSI},
      {"0.001T", "1G", 1000000000, 1000000000000, F::kDecimalSI},
      {"1m", "1m", 1, 1, F::kDecimalSI},
      {"1000u", "1m", 1, 1, F::kDecimalSI},
      {"80m", "80m", 1, 80, F::kDecimalSI},
      {"1080m", "1080m", 2, 1080, F::kDecimalSI},
      {"1.08", "1080m", 2, 1080, F::kDecimalSI},
      {"1080000000n", "1080m", 2, 1080, F::kDecimalSI},
      {"300M", "300M", 300000000, 300000000000, F::kDecimalSI},
      {"1T", "1T", 1000000000000, 1000000000000000, F::kDecimalSI},
      {"1234567M", "1234567M", 1234567000000, 1234567000000000, F::kDecimalSI},
      {"1234567m", "1234567m", 1235, 1234567, F::kDecimalSI},
      {"3k", "3k", 3000, 3000000, F::kDecimalSI},
      {"1025", "1025", 1025, 1025000, F::kDecimalSI},
      {"1e9", "1e9", 1000000000, 1000000000000, F::kDecimalExponent},
      {".001e12", "1e9", 1000000000, 1000000000000, F::kDecimalExponent},
      {"1e-3", "1e-3", 1, 1, F::kDecimalExponent},
      {"0.001e0", "1e-3", 1, 1, F::kDecimalExponent},
      {"1e-9", "1e-9", 1, 1, F::kDecimalExponent},
      {"1000e-12", "1e-9", 1, 1, F::kDecimalExponent},
      {"80e-3", "80e-3", 1, 80, F::kDecimalExponent},
      {"300e6", "300e6", 300000000, 300000000000, F::kDecimalExponent},
      {"1e12", "1e12", 1000000000000, 1000000000000000, F::kDecimalExponent},
      {"1e3", "1e3", 1000, 1000000, F::kDecimalExponent},
      {"3e3", "3e3", 3000, 3000000, F::kDecimalExponent},
      {"00", "0", 0, 0, F::kDecimalSI},
      {"1n", "1n", 1, 1, F::kDecimalSI},
      {"80n", "80n", 1, 1, F::kDecimalSI},
      {"1080n", "1080n", 1, 1, F::kDecimalSI},
      {"1u", "1u", 1, 1, F::kDecimalSI},
      {"80u", "80u", 1, 1, F::kDecimalSI},
      {"1080u", "1080u", 1, 2, F::kDecimalSI},
      {"1Ki", "1Ki", 1024, 1024000, F::kBinarySI},
      {"1Mi", "1Mi", 1048576, 1048576000, F::kBinarySI},
      {".001Ki", "1024m", 2, 1024, F::kBinarySI},
      {".000001Ki", "1024u", 1, 2, F::kDecimalSI},
      {".000000001Ki", "1024n", 1, 1, F::kDecimalSI},
      {".000000000001Ki", "2n", 1, 1, F::kDecimalSI},
      // Cases the task calls out.
      {"1.5Gi", "1536Mi", 1610612736, 1610612736000, F::kBinarySI},
      {"1024", "1024", 1024, 1024000, F::kDecimalSI},  // decimal stays decimal
      {"1000Mi", "1000Mi", 1048576000, 1048576000000, F::kBinarySI},
      {"1023Ki", "1023Ki", 1047552, 1047552000, F::kBinarySI},
      {"1.5Ki", "1536", 1536, 1536000, F::kBinarySI},  // 1536 is not a multiple of 1024
      // Binary values below 1024, or not whole, print as DecimalSI.
      {"0.5Ki", "512", 512, 512000, F::kBinarySI},
      {"1023.5Ki", "1048064", 1048064, 1048064000, F::kBinarySI},
      {"0.5Mi", "512Ki", 524288, 524288000, F::kBinarySI},
  };
  for (const Row& row : rows) ExpectRow(row);
}

// TestParseQuantity (added upstream after v1.36; the parser it tests is unchanged): the int64
// boundaries.
TEST(QuantityTest, Int64Boundaries) {
  static const std::vector<Row> rows = {
      // upstream MilliValue() overflows
      {"999999999999999999", "999999999999999999", 999999999999999999, kMaxInt64, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"999999999999999999.1", "999999999999999999100m", 1000000000000000000, kMaxInt64,
       F::kDecimalSI},
      // upstream MilliValue() overflows
      {"1000000000000000000", "1E", 1000000000000000000, kMaxInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"9999999999999999999.1", "9999999999999999999100m", kMaxInt64, kMaxInt64, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"1.000000000000000001E", "1000000000000000001", 1000000000000000001, kMaxInt64,
       F::kDecimalSI},
      // upstream Value() overflows
      {"10E", "10E", kMaxInt64, kMaxInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"10000000000000000000000m", "10E", kMaxInt64, kMaxInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"-9223372036854775809.1", "-9223372036854775809100m", kMinInt64, kMinInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"-9223372036854775808", "-9223372036854775808", kMinInt64, kMinInt64, F::kDecimalSI},
      // upstream MilliValue() overflows
      {"9223372036854775807", "9223372036854775807", kMaxInt64, kMaxInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"9223372036854775807.1", "9223372036854775807100m", kMaxInt64, kMaxInt64, F::kDecimalSI},
      // upstream Value() overflows
      {"9223372036854775808", "9223372036854775808", kMaxInt64, kMaxInt64, F::kDecimalSI},
  };
  for (const Row& row : rows) ExpectRow(row);
}

TEST(QuantityTest, RoundsUpToNanoAwayFromZero) {
  static const std::vector<Row> rows = {
      {"0.0000000001", "1n", 1, 1, F::kDecimalSI},
      {"-0.0000000001", "-1n", -1, -1, F::kDecimalSI},
      {"1e-20", "1e-9", 1, 1, F::kDecimalExponent},
      {"1e-1000", "1e-9", 1, 1, F::kDecimalExponent},
      {"1.0000000001", "1000000001n", 2, 1001, F::kDecimalSI},
      {"-1.0000000001", "-1000000001n", -2, -1001, F::kDecimalSI},
      {"0.0000000000000000000000000000000000000000000001Ki", "1n", 1, 1, F::kDecimalSI},
  };
  for (const Row& row : rows) ExpectRow(row);
}

TEST(QuantityTest, ValueRoundsAwayFromZero) {
  static const std::vector<Row> rows = {
      {"1.5", "1500m", 2, 1500, F::kDecimalSI},   {"-1.5", "-1500m", -2, -1500, F::kDecimalSI},
      {"100m", "100m", 1, 100, F::kDecimalSI},    {"-100m", "-100m", -1, -100, F::kDecimalSI},
      {"0.1m", "100u", 1, 1, F::kDecimalSI},      {"-0.1m", "-100u", -1, -1, F::kDecimalSI},
      {"1001m", "1001m", 2, 1001, F::kDecimalSI}, {"999m", "999m", 1, 999, F::kDecimalSI},
  };
  for (const Row& row : rows) ExpectRow(row);
}

// Only BinarySI is capped at 2^63-1 units; decimal formats keep larger values.
TEST(QuantityTest, OnlyBinaryIsCappedAtMaxInt64) {
  StatusOr<Quantity> binary = Quantity::Parse("16Ei");
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(binary->Nanos(), static_cast<__int128>(kMaxInt64) * 1'000'000'000);
  StatusOr<Quantity> negative_binary = Quantity::Parse("-16Ei");
  ASSERT_TRUE(negative_binary.ok());
  EXPECT_EQ(negative_binary->Nanos(), -static_cast<__int128>(kMaxInt64) * 1'000'000'000);
  EXPECT_EQ(negative_binary->String(), "-9223372036854775807");

  StatusOr<Quantity> decimal = Quantity::Parse("16E");
  ASSERT_TRUE(decimal.ok());
  EXPECT_EQ(decimal->Nanos(), 16 * Pow10(18 + 9));
  EXPECT_EQ(decimal->String(), "16E");
  EXPECT_GT(*decimal, *binary);
}

// Past E there is no DecimalSI suffix: the thousands stay in the number, so the text reads back
// as the same value (upstream prints 1000E as "1").
TEST(QuantityTest, DecimalValuesFromOneThousandEKeepTheirSuffix) {
  for (const std::string text : {"1000E", "1500E", "1000000E", "-2000E"}) {
    StatusOr<Quantity> q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->String(), text);
    StatusOr<Quantity> again = Quantity::Parse(q->String());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *q);
  }
  EXPECT_EQ(Quantity::Parse("1e21")->String(), "1e21");
}

// Upstream keeps any decimal value exactly; we saturate past ~10^29 units without overflowing,
// however long the input.
TEST(QuantityTest, SaturatesHugeDecimalValues) {
  const std::string forty_digits = "1234567890123456789012345678901234567890";
  const std::string max_nanos(38, '9');
  struct Case {
    std::string input;
    std::string canonical;
    int64_t value;
  };
  const std::vector<Case> cases = {
      {"1e1000", max_nanos + "e-9", kMaxInt64},
      {"-1e1000", "-" + max_nanos + "e-9", kMinInt64},
      {"1e2147483647", max_nanos + "e-9", kMaxInt64},
      {forty_digits, max_nanos + "n", kMaxInt64},
      {"-" + forty_digits + "k", "-" + max_nanos + "n", kMinInt64},
      {std::string(5000, '7'), max_nanos + "n", kMaxInt64},
      {"0." + std::string(5000, '0') + "1", "1n", 1},
      {std::string(5000, '9') + "Ki", "9223372036854775807", kMaxInt64},
      {"99999999999999999999999999999", "99999999999999999999999999999", kMaxInt64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.substr(0, 50));
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->String(), c.canonical);
    EXPECT_EQ(q->Value(), c.value);
  }
  // The bound itself is kept; 10^29 units, one nano past it, saturates to it.
  StatusOr<Quantity> bound = Quantity::Parse(std::string(29, '9') + "." + std::string(9, '9'));
  StatusOr<Quantity> past = Quantity::Parse("1" + std::string(29, '0'));
  ASSERT_TRUE(bound.ok() && past.ok());
  EXPECT_EQ(bound->Nanos(), Pow10(38) - 1);
  EXPECT_EQ(*bound, *past);
}

// Upstream narrows the exponent to int32 after parsing it as int64, so 2^32+1 acts as 1.
TEST(QuantityTest, ExponentWrapsLikeUpstream) {
  StatusOr<Quantity> q = Quantity::Parse("1e4294967297");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->Value(), 10);
  EXPECT_EQ(q->String(), "10");
  StatusOr<Quantity> one = Quantity::Parse("1e4294967296");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->String(), "1");
  EXPECT_FALSE(Quantity::Parse("1e9223372036854775808").ok());  // past int64: rejected
}

// Inputs upstream accepts although they look wrong; a scheduler must accept whatever the API
// server stored.
TEST(QuantityTest, AcceptsWhatUpstreamAccepts) {
  static const std::vector<Row> rows = {
      {".", "0", 0, 0, F::kDecimalSI},
      {"-.", "0", 0, 0, F::kDecimalSI},
      {"-", "0", 0, 0, F::kDecimalSI},
      {"+", "0", 0, 0, F::kDecimalSI},
      {"-0", "0", 0, 0, F::kDecimalSI},
      {"000", "0", 0, 0, F::kDecimalSI},
      {"Ki", "0", 0, 0, F::kBinarySI},  // no digits, but upstream's integer path takes it
      {"Ti", "0", 0, 0, F::kBinarySI},
      {"k", "0", 0, 0, F::kDecimalSI},
      {"e3", "0", 0, 0, F::kDecimalExponent},
      {"01Ki", "1Ki", 1024, 1024000, F::kBinarySI},
      {"+1", "1", 1, 1000, F::kDecimalSI},
      {"1.500", "1500m", 2, 1500, F::kDecimalSI},
      {"1E3", "1e3", 1000, 1000000, F::kDecimalExponent},
      {"1e+3", "1e3", 1000, 1000000, F::kDecimalExponent},
      {"1e03", "1e3", 1000, 1000000, F::kDecimalExponent},
      {"1e0", "1", 1, 1000, F::kDecimalExponent},
      {"1.", "1", 1, 1000, F::kDecimalSI},
  };
  for (const Row& row : rows) ExpectRow(row);
}

TEST(QuantityTest, RejectsInvalidInput) {
  static const char* const kInvalid[] = {
      // Upstream's invalid list.
      "1.1.M",
      "1+1.0M",
      "0.1mi",
      "0.1am",
      "aoeu",
      ".5i",
      "1i",
      "-3.01i",
      "-3.01e-",
      " 1",
      "1 ",
      // More.
      "",
      "1.1.1",
      "+-1",
      "--1",
      "1Ki1",
      "12x",
      "1ki",
      "1KI",
      "1Kii",
      "1e",
      "1e+",
      "1ee3",
      "1e1.5",
      "1m1",
      "1Ki-1",
      "0x10",
      "1,5",
      "\t1",
      "1\n",
      "1e99999999999999999999",
      // No digits where upstream needs the big-decimal path.
      "Pi",
      "Ei",
      ".Ei",
      "e-10",
      ".e-10",
      "-n1",
  };
  for (const char* input : kInvalid) {
    StatusOr<Quantity> q = Quantity::Parse(input);
    EXPECT_FALSE(q.ok()) << "\"" << input << "\" parsed as " << q->String();
    if (!q.ok()) {
      EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument) << input;
    }
  }
}

TEST(QuantityTest, ErrorsNameTheInputAndTheProblem) {
  struct Case {
    const char* input;
    const char* message;
  };
  static const Case kCases[] = {
      {"", "quantity \"\": empty string"},
      {"12x", "quantity \"12x\": unknown suffix \"x\""},
      {"1.1.1", "quantity \"1.1.1\": unknown suffix \".1\""},
      {" 1", "quantity \" 1\": must start with a number"},
      {"+-1", "quantity \"+-1\": must start with a number"},
      {"1e99999999999999999999",
       "quantity \"1e99999999999999999999\": exponent \"99999999999999999999\" is out of range"},
      {"Ei", "quantity \"Ei\": no digits in the number"},
  };
  for (const Case& c : kCases) {
    StatusOr<Quantity> q = Quantity::Parse(c.input);
    ASSERT_FALSE(q.ok()) << c.input;
    EXPECT_EQ(q.status().message(), c.message);
  }
  StatusOr<Quantity> unknown = Quantity::Parse("1i");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("quantity \"1i\": unknown suffix \"i\""),
            std::string_view::npos)
      << unknown.status();
  // A long input is cut short in the message.
  StatusOr<Quantity> long_input = Quantity::Parse(std::string(1000, '1') + "x");
  ASSERT_FALSE(long_input.ok());
  EXPECT_LT(long_input.status().message().size(), 200u);
}

// TestNewSet and TestMilliNewSet.
TEST(QuantityTest, FromValueAndFromMilli) {
  EXPECT_EQ(Quantity::FromValue(1).String(), "1");
  EXPECT_EQ(Quantity::FromValue(1000).String(), "1k");
  EXPECT_EQ(Quantity::FromValue(1234000).String(), "1234k");
  EXPECT_EQ(Quantity::FromValue(1024, F::kBinarySI).String(), "1Ki");
  EXPECT_EQ(Quantity::FromValue(1024 * 1024, F::kBinarySI).String(), "1Mi");
  EXPECT_EQ(Quantity::FromValue(1000000, F::kDecimalExponent).String(), "1e6");
  EXPECT_EQ(Quantity::FromMilli(1).String(), "1m");
  EXPECT_EQ(Quantity::FromMilli(1000).String(), "1");
  EXPECT_EQ(Quantity::FromMilli(1234000).String(), "1234");
  EXPECT_EQ(Quantity::FromMilli(1024, F::kBinarySI).String(), "1024m");
  EXPECT_EQ(Quantity::FromMilli(1024 * 1024, F::kBinarySI).String(), "1048576m");
  EXPECT_EQ(Quantity::FromMilli(1000000, F::kDecimalExponent).String(), "1e3");

  EXPECT_EQ(Quantity::FromValue(kMaxInt64).Value(), kMaxInt64);
  EXPECT_EQ(Quantity::FromValue(kMinInt64).Value(), kMinInt64);
  EXPECT_EQ(Quantity::FromValue(kMinInt64, F::kBinarySI).String(), "-8Ei");
  EXPECT_EQ(Quantity::FromValue(kMaxInt64).MilliValue(), kMaxInt64);
  EXPECT_EQ(Quantity::FromMilli(kMinInt64).MilliValue(), kMinInt64);
  EXPECT_EQ(Quantity::FromMilli(1500).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(-1500).Value(), -2);
  EXPECT_EQ(Quantity::FromValue(5), *Quantity::Parse("5000m"));
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().String(), "0");
}

// TestQuantityCmp.
TEST(QuantityTest, Compares) {
  struct Case {
    const char* x;
    const char* y;
    int want;
  };
  static const Case kCases[] = {
      {"0", "0", 0},          {"100m", "50m", 1}, {"50m", "100m", -1},
      {"10000T", "100Gi", 1}, {"1Ki", "1024", 0}, {"1k", "1Ki", -1},
      {"-1", "1n", -1},       {"1e3", "1k", 0},   {"0.5", "500m", 0},
  };
  for (const Case& c : kCases) {
    const Quantity x = *Quantity::Parse(c.x);
    const Quantity y = *Quantity::Parse(c.y);
    const int got = x < y ? -1 : (x == y ? 0 : 1);
    EXPECT_EQ(got, c.want) << c.x << " vs " << c.y;
  }
  EXPECT_EQ(Quantity::Parse("-5")->Sign(), -1);
  EXPECT_EQ(Quantity::Parse("0Ki")->Sign(), 0);
  EXPECT_EQ(Quantity::Parse("5n")->Sign(), 1);
}

}  // namespace
}  // namespace stowage::api::quantity_test
