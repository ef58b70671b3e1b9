// The built-in flag value types of flags.h, one per pflag type kube-scheduler uses, and the
// FlagSet functions that register them.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

#include "cmd/stowage/app/flags.h"
#include "pkg/config/duration.h"
#include "pkg/config/field_error.h"

namespace stowage::app {
namespace {

class StringValue : public FlagValue {
 public:
  explicit StringValue(std::string* p) : p_(p) {}
  Status Set(std::string_view text) override {
    *p_ = std::string(text);
    return OkStatus();
  }
  std::string String() const override { return *p_; }
  std::string Type() const override { return "string"; }
  bool IsZeroDefault(const std::string& d) const override { return d.empty(); }

 private:
  std::string* p_;
};

class BoolValue : public FlagValue {
 public:
  explicit BoolValue(bool* p) : p_(p) {}
  Status Set(std::string_view text) override {
    auto v = ParseGoBool(text);
    if (!v.ok()) return v.status();
    *p_ = *v;
    return OkStatus();
  }
  std::string String() const override { return *p_ ? "true" : "false"; }
  std::string Type() const override { return "bool"; }
  bool IsZeroDefault(const std::string& d) const override { return d == "false" || d.empty(); }

 private:
  bool* p_;
};

template <typename T>
class IntValue : public FlagValue {
 public:
  IntValue(T* p, int bits, std::string type) : p_(p), bits_(bits), type_(std::move(type)) {}
  Status Set(std::string_view text) override {
    auto v = ParseGoInt(text, 0, bits_);
    if (!v.ok()) return v.status();
    *p_ = static_cast<T>(*v);
    return OkStatus();
  }
  std::string String() const override { return std::to_string(*p_); }
  std::string Type() const override { return type_; }
  bool IsZeroDefault(const std::string& d) const override { return d == "0"; }

 private:
  T* p_;
  int bits_;
  std::string type_;
};

class Float32Value : public FlagValue {
 public:
  explicit Float32Value(float* p) : p_(p) {}
  Status Set(std::string_view text) override {
    auto v = ParseGoFloat32(text);
    if (!v.ok()) return v.status();
    *p_ = *v;
    return OkStatus();
  }
  std::string String() const override { return FormatGoFloat32(*p_); }
  std::string Type() const override { return "float32"; }
  bool IsZeroDefault(const std::string& d) const override { return d == "0"; }

 private:
  float* p_;
};

class DurationValue : public FlagValue {
 public:
  explicit DurationValue(std::chrono::nanoseconds* p) : p_(p) {}
  Status Set(std::string_view text) override {
    auto v = config::ParseDuration(text);
    if (!v.ok()) return v.status();
    *p_ = *v;
    return OkStatus();
  }
  std::string String() const override { return config::FormatDuration(*p_); }
  std::string Type() const override { return "duration"; }
  bool IsZeroDefault(const std::string& d) const override { return d == "0" || d == "0s"; }

 private:
  std::chrono::nanoseconds* p_;
};

class StringSliceValue : public FlagValue {
 public:
  explicit StringSliceValue(std::vector<std::string>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    std::vector<std::string> items;
    if (!text.empty()) {
      auto rec = ReadCsvRecord(text);
      if (!rec.ok()) return rec.status();
      items = std::move(rec).value();
    }
    if (!changed_) {
      *p_ = std::move(items);
    } else {
      p_->insert(p_->end(), items.begin(), items.end());
    }
    changed_ = true;
    return OkStatus();
  }
  std::string String() const override { return "[" + WriteCsvRecord(*p_) + "]"; }
  std::string Type() const override { return "stringSlice"; }
  bool IsZeroDefault(const std::string& d) const override { return d == "[]"; }

 private:
  std::vector<std::string>* p_;
  bool changed_ = false;
};

class Int32SliceValue : public FlagValue {
 public:
  explicit Int32SliceValue(std::vector<int32_t>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    std::vector<int32_t> items;
    size_t start = 0;
    while (true) {
      const size_t comma = text.find(',', start);
      const std::string_view item = text.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      auto v = ParseGoInt(item, 0, 32);
      if (!v.ok()) return v.status();
      items.push_back(static_cast<int32_t>(*v));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (!changed_) {
      *p_ = std::move(items);
    } else {
      p_->insert(p_->end(), items.begin(), items.end());
    }
    changed_ = true;
    return OkStatus();
  }
  std::string String() const override {
    std::string out = "[";
    for (size_t i = 0; i < p_->size(); ++i) {
      if (i > 0) out += ',';
      out += std::to_string((*p_)[i]);
    }
    return out + "]";
  }
  std::string Type() const override { return "int32Slice"; }

 private:
  std::vector<int32_t>* p_;
  bool changed_ = false;
};

class StringToStringValue : public FlagValue {
 public:
  explicit StringToStringValue(std::map<std::string, std::string>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    std::vector<std::string> pairs;
    const size_t equals = static_cast<size_t>(std::count(text.begin(), text.end(), '='));
    if (equals == 0) {
      return InvalidArgumentError(std::string(text) + " must be formatted as key=value");
    } else if (equals == 1) {
      // strings.Trim(val, `"`)
      std::string_view v = text;
      while (!v.empty() && v.front() == '"') v.remove_prefix(1);
      while (!v.empty() && v.back() == '"') v.remove_suffix(1);
      pairs.emplace_back(v);
    } else {
      auto rec = ReadCsvRecord(text);
      if (!rec.ok()) return rec.status();
      pairs = std::move(rec).value();
    }
    std::map<std::string, std::string> out;
    for (const std::string& pair : pairs) {
      const size_t eq = pair.find('=');
      if (eq == std::string::npos) {
        return InvalidArgumentError(pair + " must be formatted as key=value");
      }
      out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
    if (!changed_) {
      *p_ = std::move(out);
    } else {
      for (auto& [k, v] : out) (*p_)[k] = v;
    }
    changed_ = true;
    return OkStatus();
  }
  std::string String() const override {
    std::vector<std::string> records;
    for (const auto& [k, v] : *p_) records.push_back(k + "=" + v);
    return "[" + WriteCsvRecord(records) + "]";
  }
  std::string Type() const override { return "stringToString"; }

 private:
  std::map<std::string, std::string>* p_;
  bool changed_ = false;
};

class IPValue : public FlagValue {
 public:
  explicit IPValue(std::string* p) : p_(p) {}
  Status Set(std::string_view text) override {
    if (text.empty()) return OkStatus();  // pflag keeps the current address
    std::string_view trimmed = text;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
      trimmed.remove_prefix(1);
    }
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
      trimmed.remove_suffix(1);
    }
    auto ip = CanonicalIP(trimmed);
    if (!ip) return InvalidArgumentError("failed to parse IP: " + GoQuote(text));
    *p_ = *ip;
    return OkStatus();
  }
  std::string String() const override { return p_->empty() ? "<nil>" : *p_; }
  std::string Type() const override { return "ip"; }
  bool IsZeroDefault(const std::string& d) const override { return d == "<nil>"; }

 private:
  std::string* p_;
};

}  // namespace

Flag& FlagSet::String(std::string* p, std::string name, std::string usage) {
  return Var(std::make_unique<StringValue>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::Bool(bool* p, std::string name, std::string usage) {
  Flag& f = Var(std::make_unique<BoolValue>(p), std::move(name), std::move(usage));
  f.no_opt_def_value = "true";
  return f;
}

Flag& FlagSet::Int(int64_t* p, std::string name, std::string usage) {
  return Var(std::make_unique<IntValue<int64_t>>(p, 64, "int"), std::move(name), std::move(usage));
}

Flag& FlagSet::Int32(int32_t* p, std::string name, std::string usage) {
  return Var(std::make_unique<IntValue<int32_t>>(p, 32, "int32"), std::move(name),
             std::move(usage));
}

Flag& FlagSet::Float32(float* p, std::string name, std::string usage) {
  return Var(std::make_unique<Float32Value>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::Duration(std::chrono::nanoseconds* p, std::string name, std::string usage) {
  return Var(std::make_unique<DurationValue>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::StringSlice(std::vector<std::string>* p, std::string name, std::string usage) {
  return Var(std::make_unique<StringSliceValue>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::Int32Slice(std::vector<int32_t>* p, std::string name, std::string usage) {
  return Var(std::make_unique<Int32SliceValue>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::StringToString(std::map<std::string, std::string>* p, std::string name,
                              std::string usage) {
  return Var(std::make_unique<StringToStringValue>(p), std::move(name), std::move(usage));
}

Flag& FlagSet::IP(std::string* p, std::string name, std::string usage) {
  return Var(std::make_unique<IPValue>(p), std::move(name), std::move(usage));
}

}  // namespace stowage::app
