// A command-line flag parser that behaves like spf13/pflag, the library kube-scheduler's flags
// are defined with, so that every command line kube-scheduler accepts is accepted here with the
// same meaning, and every one it rejects is rejected with the same message.
//
// Syntax (pflag's):
//   --name=value  --name value     a flag with a value ("--name" alone is an error for it)
//   --flag  --flag=false           a flag with an optional value (bools, --version)
//   -v3  -v=3  -v 3                a one-letter shorthand; bool shorthands may be combined
//   --                             ends the flags; everything after it is positional
// Names are normalized as Kubernetes' WordSepNormalizeFunc does: "--secure_port" is
// "--secure-port". Errors are pflag's, word for word:
//   unknown flag: --nope
//   unknown shorthand flag: 'x' in -x
//   flag needs an argument: --secure-port
//   invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid
//   syntax
//
// A FlagSet does not own the variables its flags write to: each flag is bound to a variable of
// the caller (as pflag's XxxVar functions are), whose value at registration is the flag's default.
// Every flag belongs to a named group; Usage() prints the groups in the order they were first
// used, each sorted by flag name, in the layout of Kubernetes' cliflag.PrintSections.
//
// A FlagSet is not thread-safe; it is built, parsed and read on one thread at startup.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "stowage/common/status.h"

namespace stowage::app {

// The value behind one flag (pflag.Value): parses text into the caller's variable and prints
// the variable back.
class FlagValue {
 public:
  virtual ~FlagValue() = default;
  // Parses text and stores the result. An error's message is the cause alone (for example
  // `strconv.ParseBool: parsing "maybe": invalid syntax`); the FlagSet names the flag.
  virtual Status Set(std::string_view text) = 0;
  // The current value as pflag prints it: "10s", "[a,b]", "true", "0.0.0.0".
  virtual std::string String() const = 0;
  // pflag's type name ("string", "int32", "stringSlice", "duration", ...).
  virtual std::string Type() const = 0;
  // Whether the value is unchanged from its zero value, which --help leaves out as a default.
  // The default rule is pflag's fallback for custom types.
  virtual bool IsZeroDefault(const std::string& def_value) const {
    return def_value.empty() || def_value == "false" || def_value == "<nil>" || def_value == "0";
  }
};

// One registered flag.
struct Flag {
  std::string name;
  char shorthand = 0;  // 0: none
  std::string usage;
  std::string group;
  std::string def_value;         // value->String() at registration
  std::string no_opt_def_value;  // used for "--name" without a value; "true" for bools
  // Non-empty: the flag is deprecated (pflag MarkDeprecated). Using it prints
  // "Flag --<name> has been deprecated, <deprecated>" and --help hides it.
  std::string deprecated;
  bool hidden = false;
  bool changed = false;  // set on the command line
  std::unique_ptr<FlagValue> value;
};

class FlagSet {
 public:
  // name is the command name, used in messages ("kube-scheduler").
  explicit FlagSet(std::string name) : name_(std::move(name)) {}
  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  // Flags registered from now on belong to this group.
  void SetGroup(std::string group);
  // Where deprecation warnings go (default std::cerr).
  void SetOutput(std::ostream* out) { out_ = out; }

  // Registration. The variable's current value is the default. Each returns the flag so the
  // caller can add a shorthand or deprecation. A name registered twice is a programming error
  // and aborts.
  Flag& Var(std::unique_ptr<FlagValue> value, std::string name, std::string usage);
  Flag& String(std::string* p, std::string name, std::string usage);
  Flag& Bool(bool* p, std::string name, std::string usage);
  // Go's int, which is 64 bits wide; parsed with strconv.ParseInt(s, 0, 64).
  Flag& Int(int64_t* p, std::string name, std::string usage);
  Flag& Int32(int32_t* p, std::string name, std::string usage);
  Flag& Float32(float* p, std::string name, std::string usage);
  // Go time.Duration syntax ("1h2m3.5s").
  Flag& Duration(std::chrono::nanoseconds* p, std::string name, std::string usage);
  // Comma-separated (CSV, so "a,\"b,c\"" is two items). The first use on the command line
  // replaces the default; later uses append.
  Flag& StringSlice(std::vector<std::string>* p, std::string name, std::string usage);
  // Comma-separated int32 values (strconv.ParseInt(s, 0, 32)); replaces, then appends.
  Flag& Int32Slice(std::vector<int32_t>* p, std::string name, std::string usage);
  // key=value pairs, comma-separated (pflag's stringToString); replaces, then merges.
  Flag& StringToString(std::map<std::string, std::string>* p, std::string name, std::string usage);
  // An IPv4 or IPv6 address, stored in Go's canonical text form.
  Flag& IP(std::string* p, std::string name, std::string usage);

  // Parses the arguments (without the program name). Positional arguments are collected in
  // args(). Stops at the first error.
  Status Parse(const std::vector<std::string>& arguments);

  // The positional arguments found by Parse.
  const std::vector<std::string>& args() const { return args_; }

  // nullptr when no flag has that (normalized) name.
  const Flag* Lookup(std::string_view name) const;
  Flag* Lookup(std::string_view name);
  // Whether the flag was set on the command line. Unknown names are false.
  bool Changed(std::string_view name) const;
  // Sets a flag as if given on the command line, with the same errors.
  Status Set(std::string_view name, std::string_view value);

  // Every flag, in registration order.
  std::vector<const Flag*> Flags() const;
  // Group names in the order of first use.
  const std::vector<std::string>& Groups() const { return groups_; }

  // The flag lines of one group as pflag's FlagUsagesWrapped prints them: sorted by name, the
  // help column aligned, defaults appended. cols > 0 wraps the help text to that width.
  std::string GroupUsage(std::string_view group, int cols = 0) const;
  // All groups as cliflag.PrintSections prints them: "\n<Group> flags:\n\n<lines>" per group.
  std::string Usage(int cols = 0) const;

 private:
  Status SetFlag(Flag& flag, std::string_view value);
  Status ParseLong(std::string_view arg, const std::vector<std::string>& arguments, size_t& i);
  Status ParseShort(std::string_view arg, const std::vector<std::string>& arguments, size_t& i);

  std::string name_;
  std::string group_;
  std::vector<std::string> groups_;
  std::vector<std::unique_ptr<Flag>> flags_;
  std::map<std::string, Flag*, std::less<>> by_name_;
  std::map<char, Flag*> by_shorthand_;
  std::vector<std::string> args_;
  std::ostream* out_ = nullptr;
};

// Name normalization (Kubernetes' WordSepNormalizeFunc): "_" becomes "-".
std::string NormalizeFlagName(std::string_view name);

// --- Go's strconv and friends, with their error messages -------------------------------------
// Errors are InvalidArgument with Go's text, e.g. `strconv.ParseInt: parsing "x": invalid syntax`
// or `strconv.ParseInt: parsing "99999999999": value out of range`.

// strconv.ParseBool: 1 t T TRUE true True 0 f F FALSE false False.
StatusOr<bool> ParseGoBool(std::string_view s);
// strconv.ParseInt(s, base, bits) for base 0 (prefixes 0x 0o 0b 0, underscores) or 10.
StatusOr<int64_t> ParseGoInt(std::string_view s, int base, int bits);
// strconv.ParseUint(s, 10, bits).
StatusOr<uint64_t> ParseGoUint(std::string_view s, int bits);
// strconv.ParseFloat(s, 32), rounded to float.
StatusOr<float> ParseGoFloat32(std::string_view s);
// strconv.FormatFloat(f, 'g', -1, 32), as pflag prints a float32.
std::string FormatGoFloat32(float f);
// net.ParseIP: the canonical text of an IPv4 or IPv6 address (IPv4-mapped IPv6 prints as
// IPv4), or nullopt.
std::optional<std::string> CanonicalIP(std::string_view s);
// encoding/csv: one record of comma-separated fields (quotes as RFC 4180), with Go's errors
// ("parse error on line 1, column 3: bare \" in non-quoted-field").
StatusOr<std::vector<std::string>> ReadCsvRecord(std::string_view s);
// encoding/csv's Writer for one record, without the line end.
std::string WriteCsvRecord(const std::vector<std::string>& fields);

}  // namespace stowage::app
