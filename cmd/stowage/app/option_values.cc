// The flag values of kube-scheduler's option types, each parsing as the Go type it mirrors.
#include "cmd/stowage/app/option_values.h"

#include <algorithm>
#include <regex>

#include "pkg/common/go_quote.h"
#include "pkg/common/macros.h"
#include "pkg/config/field_error.h"

namespace stowage::app {
namespace {

// cliflag.NamedCertKeyArray: "cert,key[:name1,name2]"; replaces, then appends.
class NamedCertKeyArrayValue : public FlagValue {
 public:
  explicit NamedCertKeyArrayValue(std::vector<NamedCertKey>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    auto trim = [](std::string_view s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
      return std::string(s);
    };
    NamedCertKey nkc;
    std::string keycert;
    if (const size_t colon = text.find(':'); colon != std::string_view::npos) {
      keycert = trim(text.substr(0, colon));
      const std::string names = trim(text.substr(colon + 1));
      if (names.empty()) return InvalidArgumentError("empty names list is not allowed");
      size_t start = 0;
      while (true) {
        const size_t comma = names.find(',', start);
        nkc.names.push_back(trim(std::string_view(names).substr(
            start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else {
      keycert = trim(text);
    }
    const size_t comma = keycert.find(',');
    if (comma == std::string::npos || keycert.find(',', comma + 1) != std::string::npos) {
      return InvalidArgumentError("expected comma separated certificate and key file paths");
    }
    nkc.cert_file = trim(std::string_view(keycert).substr(0, comma));
    nkc.key_file = trim(std::string_view(keycert).substr(comma + 1));
    if (!changed_) p_->clear();
    p_->push_back(std::move(nkc));
    changed_ = true;
    return OkStatus();
  }
  std::string String() const override {
    std::string out = "[";
    for (size_t i = 0; i < p_->size(); ++i) {
      const NamedCertKey& n = (*p_)[i];
      if (i > 0) out += ';';
      out += n.cert_file + "," + n.key_file;
      for (size_t k = 0; k < n.names.size(); ++k) out += (k == 0 ? ":" : ",") + n.names[k];
    }
    return out + "]";
  }
  std::string Type() const override { return "namedCertKey"; }

 private:
  std::vector<NamedCertKey>* p_;
  bool changed_ = false;
};

// cliflag.ColonSeparatedMultimapStringString with a default empty key (--feature-gates).
class ColonMultimapValue : public FlagValue {
 public:
  explicit ColonMultimapValue(std::map<std::string, std::vector<std::string>>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    if (!initialized_) {
      p_->clear();
      initialized_ = true;
    }
    auto trim = [](std::string_view s) {
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
      while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
      return std::string(s);
    };
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const std::string_view pair = text.substr(start, comma - start);
      start = comma + 1;
      if (pair.empty()) continue;
      const size_t colon = pair.find(':');
      if (colon == std::string_view::npos) {
        (*p_)[""].push_back(trim(pair));
      } else {
        (*p_)[trim(pair.substr(0, colon))].push_back(trim(pair.substr(colon + 1)));
      }
    }
    return OkStatus();
  }
  std::string String() const override {
    std::string out;
    for (const auto& [k, vs] : *p_) {
      for (const std::string& v : vs) {
        if (!out.empty()) out += ',';
        out += k + ":" + v;
      }
    }
    return out;
  }
  std::string Type() const override { return "colonSeparatedMultimapStringString"; }

 private:
  std::map<std::string, std::vector<std::string>>* p_;
  bool initialized_ = false;
};

// logs' VerbosityLevelPflag: strconv.ParseUint(s, 10, 31).
class LevelValue : public FlagValue {
 public:
  explicit LevelValue(uint32_t* p) : p_(p) {}
  Status Set(std::string_view text) override {
    auto v = ParseGoUint(text, 31);
    if (!v.ok()) return v.status();
    *p_ = static_cast<uint32_t>(*v);
    return OkStatus();
  }
  std::string String() const override { return std::to_string(*p_); }
  std::string Type() const override { return "Level"; }

 private:
  uint32_t* p_;
};

// logs' VModuleConfigurationPflag: "pattern=N,..."; every use appends.
class VModuleValue : public FlagValue {
 public:
  explicit VModuleValue(std::vector<VModuleItem>* p) : p_(p) {}
  Status Set(std::string_view text) override {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      const std::string_view pat = text.substr(start, comma - start);
      start = comma + 1;
      if (pat.empty()) continue;
      const size_t eq = pat.find('=');
      if (eq == std::string_view::npos || eq == 0 || eq + 1 == pat.size() ||
          pat.find('=', eq + 1) != std::string_view::npos) {
        return InvalidArgumentError(GoQuote(pat) + " does not have the pattern=N format");
      }
      auto v = ParseGoUint(pat.substr(eq + 1), 31);
      if (!v.ok()) {
        return InvalidArgumentError("parsing verbosity in " + GoQuote(pat) + ": " +
                                    std::string(v.status().message()));
      }
      p_->push_back({std::string(pat.substr(0, eq)), static_cast<uint32_t>(*v)});
    }
    return OkStatus();
  }
  std::string String() const override {
    std::string out;
    for (const VModuleItem& item : *p_) {
      if (!out.empty()) out += ',';
      out += item.file_pattern + "=" + std::to_string(item.verbosity);
    }
    return out;
  }
  std::string Type() const override { return "pattern=N,..."; }

 private:
  std::vector<VModuleItem>* p_;
};

// resource.QuantityValue.
class QuantityValue : public FlagValue {
 public:
  explicit QuantityValue(api::Quantity* p) : p_(p) {}
  Status Set(std::string_view text) override {
    static const auto* kFormat = new std::regex("^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$");
    const std::string s(text);
    if (!std::regex_match(s, *kFormat)) {
      return InvalidArgumentError(
          "quantities must match the regular expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
    auto q = api::Quantity::Parse(s);
    if (!q.ok()) return InvalidArgumentError("unable to parse quantity's suffix");
    *p_ = *q;
    return OkStatus();
  }
  std::string String() const override { return p_->String(); }
  std::string Type() const override { return "quantity"; }

 private:
  api::Quantity* p_;
};

// verflag's versionValue: true, false, raw or a vX.Y.Z version to report.
class VersionValue : public FlagValue {
 public:
  VersionValue(VersionFlag* flag, std::string* reported) : flag_(flag), reported_(reported) {}
  Status Set(std::string_view text) override {
    if (text == "raw") {
      *flag_ = VersionFlag::kRaw;
      text_ = "raw";
      return OkStatus();
    }
    if (!text.empty() && text[0] == 'v') {
      RETURN_IF_ERROR(ValidateDynamicVersion(text));
      *reported_ = std::string(text);
      *flag_ = VersionFlag::kFalse;
      text_ = std::string(text);
      return OkStatus();
    }
    auto b = ParseGoBool(text);
    if (!b.ok()) return b.status();
    *flag_ = *b ? VersionFlag::kTrue : VersionFlag::kFalse;
    text_ = *b ? "true" : "false";
    return OkStatus();
  }
  std::string String() const override { return text_; }
  std::string Type() const override { return "version"; }

 private:
  // version.SetDynamicVersion: a semantic version with the default's major/minor/patch.
  static Status ValidateDynamicVersion(std::string_view v) {
    const std::string text(v);
    if (text == kKubeSchedulerVersion) return OkStatus();
    static const auto* kSemver = new std::regex(
        R"(^\s*v?([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$)");
    std::smatch m;
    if (!std::regex_match(text, m, *kSemver)) {
      return InvalidArgumentError("illegal version string " + GoQuote(text));
    }
    static const auto* kDefault = new std::regex(R"(^v([0-9]+)\.([0-9]+)\.([0-9]+)$)");
    std::smatch d;
    const std::string def(kKubeSchedulerVersion);
    std::regex_match(def, d, *kDefault);
    if (std::stoull(m[1]) != std::stoull(d[1]) || std::stoull(m[2]) != std::stoull(d[2]) ||
        std::stoull(m[3]) != std::stoull(d[3])) {
      return InvalidArgumentError("version " + GoQuote(text) +
                                  " must match major/minor/patch of default version " +
                                  GoQuote(def));
    }
    return OkStatus();
  }

  VersionFlag* flag_;
  std::string* reported_;
  std::string text_ = "false";
};

}  // namespace

std::unique_ptr<FlagValue> NamedCertKeyArrayFlag(std::vector<NamedCertKey>* p) {
  return std::make_unique<NamedCertKeyArrayValue>(p);
}
std::unique_ptr<FlagValue> ColonMultimapFlag(std::map<std::string, std::vector<std::string>>* p) {
  return std::make_unique<ColonMultimapValue>(p);
}
std::unique_ptr<FlagValue> LevelFlag(uint32_t* p) { return std::make_unique<LevelValue>(p); }
std::unique_ptr<FlagValue> VModuleFlag(std::vector<VModuleItem>* p) {
  return std::make_unique<VModuleValue>(p);
}
std::unique_ptr<FlagValue> QuantityFlag(api::Quantity* p) {
  return std::make_unique<QuantityValue>(p);
}
std::unique_ptr<FlagValue> VersionFlagValue(VersionFlag* flag, std::string* reported) {
  return std::make_unique<VersionValue>(flag, reported);
}

}  // namespace stowage::app
