#include "stowage/api/quantity.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <string>

#include "pkg/common/strconv.h"

namespace stowage::api {
namespace {

using U128 = unsigned __int128;

constexpr U128 Pow10(int n) {
  U128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

constexpr int64_t kNanosPerUnit = 1'000'000'000;
constexpr int64_t kNanosPerMilli = 1'000'000;
// Upstream keeps decimal quantities of any size in a big decimal; we saturate their magnitude
// here, just under 10^29 units. Nothing real comes near it, and the value stays exact below it
// and prints back to a string that parses to the same value.
constexpr U128 kMaxDecimalNanos = Pow10(38) - 1;
// Upstream caps BinarySI quantities (and only those) at 2^63-1 units when parsing.
constexpr U128 kMaxBinaryNanos =
    static_cast<U128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;
// The most decimal digits an unsigned 128-bit value can hold without overflow checks.
constexpr int64_t kSafeDigits = 38;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Go's int32(x) conversion: keeps the low 32 bits. Upstream narrows the exponent and does its
// scale arithmetic in int32, so an exponent like 4294967297 behaves as 1; we follow it.
int64_t Wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// The pieces of a quantity string, split the way upstream's parseQuantityString splits them.
struct Scanned {
  bool negative = false;
  std::string_view int_digits;   // after leading zeros; may be empty
  std::string_view frac_digits;  // after the '.'; may be empty
  bool has_digit = false;        // the number part holds at least one digit, zeros included
  std::string_view suffix;
  bool malformed = false;  // trailing text that cannot be a suffix
  size_t rest = 0;         // where the suffix (or the malformed text) starts
};

bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

Scanned Scan(std::string_view s) {
  Scanned out;
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) {
    out.negative = s[pos] == '-';
    ++pos;
  }
  const size_t zeros_begin = pos;
  while (pos < end && s[pos] == '0') ++pos;
  out.has_digit = pos > zeros_begin;
  // Nothing but a sign and zeros: upstream stops here and yields zero, so "-", "+" and "-00"
  // are all valid.
  if (pos == end) {
    out.rest = end;
    return out;
  }
  const size_t int_begin = pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  out.int_digits = s.substr(int_begin, pos - int_begin);
  if (pos < end && s[pos] == '.') {
    ++pos;
    const size_t frac_begin = pos;
    while (pos < end && IsDigit(s[pos])) ++pos;
    out.frac_digits = s.substr(frac_begin, pos - frac_begin);
  }
  out.has_digit = out.has_digit || !out.int_digits.empty() || !out.frac_digits.empty();
  // The suffix is [eEinumkKMGTP]* [+-]? [0-9]*, to the end of the string.
  out.rest = pos;
  while (pos < end && IsSuffixLetter(s[pos])) ++pos;
  if (pos < end && (s[pos] == '+' || s[pos] == '-')) ++pos;
  while (pos < end && IsDigit(s[pos])) ++pos;
  if (pos < end) {
    out.malformed = true;
    return out;
  }
  out.suffix = s.substr(out.rest);
  return out;
}

struct Suffix {
  int base = 10;  // 10 or 2
  int64_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

std::optional<Suffix> InterpretSuffix(std::string_view s) {
  using F = Quantity::Format;
  static constexpr struct {
    std::string_view name;
    int base;
    int exponent;
  } kTable[] = {
      {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"k", 10, 3},  {"M", 10, 6},
      {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
      {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
  };
  for (const auto& entry : kTable) {
    if (entry.name == s) {
      return Suffix{entry.base, entry.exponent, entry.base == 2 ? F::kBinarySI : F::kDecimalSI};
    }
  }
  if (s.size() > 1 && (s.front() == 'e' || s.front() == 'E')) {
    std::optional<int64_t> exponent = ParseInt64(s.substr(1));
    if (!exponent) return std::nullopt;
    return Suffix{10, Wrap32(*exponent), F::kDecimalExponent};
  }
  return std::nullopt;
}

// digits * multiplier, as decimal digits. Linear in the input, so a long mantissa costs no more
// than reading it.
std::string MultiplyDigits(std::string_view digits, uint64_t multiplier) {
  std::string out;
  out.reserve(digits.size() + 20);
  U128 carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const U128 x = static_cast<U128>(*it - '0') * multiplier + carry;
    out.push_back(static_cast<char>('0' + static_cast<int>(x % 10)));
    carry = x / 10;
  }
  while (carry != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(carry % 10)));
    carry /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// Parses at most kSafeDigits decimal digits.
U128 DigitsValue(std::string_view digits) {
  U128 v = 0;
  for (char c : digits) v = v * 10 + static_cast<U128>(c - '0');
  return v;
}

// |digits * 10^exp10| rounded up to a whole number, saturated at max. This is upstream's
// "round up to the nearest nano, away from zero" once the caller has put exp10 in nano units.
U128 ScaleRoundUp(std::string_view digits, int64_t exp10, U128 max) {
  while (!digits.empty() && digits.front() == '0') digits.remove_prefix(1);
  if (digits.empty()) return 0;
  // Trailing zeros move into the exponent, so a fraction left over below is never zero.
  while (digits.back() == '0') {
    digits.remove_suffix(1);
    ++exp10;
  }
  const auto n = static_cast<int64_t>(digits.size());
  if (exp10 >= 0) {
    // The value is at least 10^(n-1+exp10); past 10^38 it is over any cap.
    if (n + exp10 > kSafeDigits) return max;
    return std::min(DigitsValue(digits) * Pow10(static_cast<int>(exp10)), max);
  }
  const int64_t whole_digits = n + exp10;  // digits left of the decimal point
  if (whole_digits <= 0) return 1;         // a nonzero fraction rounds up to one
  if (whole_digits > kSafeDigits) return max;
  const U128 whole = DigitsValue(digits.substr(0, static_cast<size_t>(whole_digits)));
  return std::min(whole + 1, max);
}

std::string QuoteForMessage(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      out += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

Status ParseError(std::string_view input, std::string_view problem) {
  std::string msg = "quantity ";
  // A quantity field can hold anything; keep the message bounded.
  constexpr size_t kMaxEcho = 64;
  if (input.size() > kMaxEcho) {
    msg += QuoteForMessage(input.substr(0, kMaxEcho));
    msg += "...";
  } else {
    msg += QuoteForMessage(input);
  }
  msg += ": ";
  msg += problem;
  return InvalidArgumentError(std::move(msg));
}

void AppendUnsigned(std::string& out, U128 v) {
  char buf[40];
  size_t i = sizeof(buf);
  do {
    buf[--i] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  out.append(buf + i, sizeof(buf) - i);
}

U128 Magnitude(__int128 v) { return v < 0 ? ~static_cast<U128>(v) + 1 : static_cast<U128>(v); }

// |nanos| / divisor rounded away from zero, saturated to int64.
int64_t ScaledValue(__int128 nanos, int64_t divisor) {
  const U128 mag = Magnitude(nanos);
  const auto d = static_cast<U128>(divisor);
  const U128 rounded = mag / d + (mag % d != 0 ? 1 : 0);
  constexpr auto kMax = static_cast<U128>(std::numeric_limits<int64_t>::max());
  if (nanos >= 0) {
    return rounded > kMax ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(rounded);
  }
  return rounded > kMax ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(rounded);
}

}  // namespace

StatusOr<Quantity> Quantity::Parse(std::string_view s) {
  if (s.empty()) return ParseError(s, "empty string");
  const Scanned scanned = Scan(s);
  const size_t sign_len = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const bool no_number = !scanned.has_digit && scanned.rest == sign_len;
  if (scanned.malformed) {
    if (no_number) return ParseError(s, "must start with a number");
    return ParseError(s, "unknown suffix " + QuoteForMessage(s.substr(scanned.rest)));
  }
  const std::optional<Suffix> suffix = InterpretSuffix(scanned.suffix);
  if (!suffix) {
    if (no_number) return ParseError(s, "must start with a number");
    const std::string_view sfx = scanned.suffix;
    const size_t digits_at = sfx.size() > 1 && (sfx[1] == '+' || sfx[1] == '-') ? 2 : 1;
    if (sfx.size() > digits_at && (sfx[0] == 'e' || sfx[0] == 'E') &&
        std::all_of(sfx.begin() + static_cast<ptrdiff_t>(digits_at), sfx.end(), IsDigit)) {
      return ParseError(s, "exponent " + QuoteForMessage(sfx.substr(1)) + " is out of range");
    }
    return ParseError(s, "unknown suffix " + QuoteForMessage(sfx) +
                             " (want n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an "
                             "exponent like e3)");
  }

  // Upstream has an int64 fast path and a big-decimal slow path. They give the same value
  // with two exceptions, both mirrored here: each does its int32 scale arithmetic its own way,
  // which shows only for exponents near +-2^31, and only the slow path needs a digit, so "Ki"
  // parses as zero while "Ei" is an error.
  const auto frac_len = static_cast<int64_t>(scanned.frac_digits.size());
  // Upstream counts a missing integer part as the one digit "0".
  const int64_t num_len =
      scanned.int_digits.empty() ? 1 : static_cast<int64_t>(scanned.int_digits.size());
  std::string digits;
  digits.reserve(scanned.int_digits.size() + scanned.frac_digits.size());
  digits.append(scanned.int_digits);
  digits.append(scanned.frac_digits);

  Format format = suffix->format;
  U128 magnitude = 0;
  if (suffix->base == 10) {
    const int64_t exp32 = suffix->exponent;
    const int64_t fast_scale = Wrap32(exp32 - Wrap32(frac_len));
    int64_t exp10 = 0;
    if (Wrap32(18 - Wrap32(num_len + frac_len)) >= 0 && fast_scale >= -9) {
      exp10 = fast_scale;
    } else {
      if (!scanned.has_digit) return ParseError(s, "no digits in the number");
      exp10 = -Wrap32(Wrap32(frac_len) + Wrap32(-exp32));
    }
    magnitude = ScaleRoundUp(digits, exp10 + 9, kMaxDecimalNanos);
  } else {
    const int64_t exp2 = suffix->exponent;
    const bool fast = frac_len == 0 && 14 - num_len - exp2 * 3 / 10 >= 0;
    if (!fast && !scanned.has_digit) return ParseError(s, "no digits in the number");
    const std::string product = MultiplyDigits(digits, uint64_t{1} << exp2);
    magnitude = ScaleRoundUp(product, 9 - frac_len, kMaxBinaryNanos);
    // Upstream switches a binary amount strictly between -1 and 1 to DecimalSI.
    if (magnitude != 0 && magnitude < static_cast<U128>(kNanosPerUnit)) format = Format::kDecimalSI;
  }
  const auto nanos = static_cast<__int128>(magnitude);
  return Quantity(scanned.negative ? -nanos : nanos, format);
}

Quantity Quantity::FromValue(int64_t value, Format format) {
  return Quantity(static_cast<__int128>(value) * kNanosPerUnit, format);
}

Quantity Quantity::FromMilli(int64_t milli, Format format) {
  return Quantity(static_cast<__int128>(milli) * kNanosPerMilli, format);
}

int64_t Quantity::Value() const { return ScaledValue(nanos_, kNanosPerUnit); }

int64_t Quantity::MilliValue() const { return ScaledValue(nanos_, kNanosPerMilli); }

std::string Quantity::String() const {
  if (nanos_ == 0) return "0";
  std::string out;
  if (nanos_ < 0) out += '-';
  U128 mag = Magnitude(nanos_);

  Format format = format_;
  constexpr auto kUnit = static_cast<U128>(kNanosPerUnit);
  // Binary suffixes only fit whole numbers of at least 1024; anything else prints as DecimalSI
  // so that no precision is lost.
  if (format == Format::kBinarySI && (mag < 1024 * kUnit || mag % kUnit != 0)) {
    format = Format::kDecimalSI;
  }

  if (format == Format::kBinarySI) {
    U128 units = mag / kUnit;
    int exponent = 0;
    while (units >= 1024 && units % 1024 == 0) {
      units /= 1024;
      ++exponent;
    }
    static constexpr std::string_view kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    AppendUnsigned(out, units);
    // Capped values stay below 8Ei, so the exponent never passes Ei.
    if (exponent < static_cast<int>(std::size(kBinary))) out += kBinary[exponent];
    return out;
  }

  // Move factors of ten into the exponent, then lower the exponent to a multiple of three.
  int exponent = -9;
  while (mag % 10 == 0) {
    mag /= 10;
    ++exponent;
  }
  while (exponent % 3 != 0) {
    mag *= 10;  // cannot overflow: this only restores factors of ten removed above
    --exponent;
  }
  if (format == Format::kDecimalExponent) {
    AppendUnsigned(out, mag);
    if (exponent != 0) {
      out += 'e';
      out += std::to_string(exponent);
    }
    return out;
  }
  static constexpr std::string_view kDecimal[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
  constexpr int kLast = static_cast<int>(std::size(kDecimal)) - 1;
  int index = (exponent + 9) / 3;
  // Past E there is no suffix: upstream then writes none at all (10^21 prints as "1"), which
  // reads back a sextillion times smaller. The thousands go into the number instead ("1000E");
  // this cannot overflow, as the number is then the value in units of 10^18.
  for (; index > kLast; --index) mag *= 1000;
  AppendUnsigned(out, mag);
  out += kDecimal[index];
  return out;
}

}  // namespace stowage::api
