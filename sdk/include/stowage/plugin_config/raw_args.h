// Typed args for out-of-tree plugins. Their pluginConfig args reach the factory as RawArgs (the
// JSON text the file held); a plugin describes its args struct's fields once and DecodeArgs
// fills it, with errors that name the plugin and the field:
//
//   struct MyArgs {
//     int64_t weight = 1;
//     std::string mode;
//     void Describe(config::ArgsFields& f) { f.Int("weight", &weight).String("mode", &mode); }
//   };
//   ASSIGN_OR_RETURN(MyArgs a, config::DecodeArgs<MyArgs>("MyPlugin", args));
//
// Decoding is strict, as upstream's: an unknown field is an error; a field that is absent keeps
// the struct's default. No JSON library appears in this header. Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stowage/common/status.h"
#include "stowage/plugin_config/args.h"

#pragma GCC visibility push(default)  // the SDK: exported to plugin libraries

namespace stowage::config {

// The fields of an args struct, by their JSON names, each bound to the member it fills.
class ArgsFields {
 public:
  ArgsFields& Int(std::string_view name, int64_t* out) { return Add(name, out); }
  ArgsFields& Int32(std::string_view name, int32_t* out) { return Add(name, out); }
  ArgsFields& Double(std::string_view name, double* out) { return Add(name, out); }
  ArgsFields& Bool(std::string_view name, bool* out) { return Add(name, out); }
  ArgsFields& String(std::string_view name, std::string* out) { return Add(name, out); }
  ArgsFields& Strings(std::string_view name, std::vector<std::string>* out) {
    return Add(name, out);
  }

  using Target =
      std::variant<int64_t*, int32_t*, double*, bool*, std::string*, std::vector<std::string>*>;
  struct Field {
    std::string name;
    Target target;
  };
  const std::vector<Field>& fields() const { return fields_; }

 private:
  ArgsFields& Add(std::string_view name, Target target) {
    fields_.push_back({std::string(name), target});
    return *this;
  }
  std::vector<Field> fields_;
};

// Fills the described fields from args: RawArgs is decoded, std::monostate (no args) leaves the
// defaults, typed in-tree args are an error. Errors read
// `plugin "MyPlugin": args: field "weight": expected an integer, got string "x"`.
stowage::Status DecodeRawArgs(std::string_view plugin, const PluginArgs& args,
                              const ArgsFields& fields);

// A T (default-constructed, then decoded) for a T with `void Describe(ArgsFields&)`.
template <typename T>
StatusOr<T> DecodeArgs(std::string_view plugin, const PluginArgs& args) {
  T out;
  ArgsFields fields;
  out.Describe(fields);
  if (stowage::Status s = DecodeRawArgs(plugin, args, fields); !s.ok()) return s;
  return out;
}

}  // namespace stowage::config

#pragma GCC visibility pop
