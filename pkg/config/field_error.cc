#include "pkg/config/field_error.h"

#include <algorithm>

#include "pkg/api/name_validation.h"
#include "pkg/common/error_list.h"

namespace stowage::config {
namespace {

std::string_view TypeText(FieldError::Type type) {
  switch (type) {
    case FieldError::Type::kRequired: return "Required value";
    case FieldError::Type::kInvalid: return "Invalid value";
    case FieldError::Type::kNotSupported: return "Unsupported value";
    case FieldError::Type::kDuplicate: return "Duplicate value";
    case FieldError::Type::kForbidden: return "Forbidden";
  }
  return "";
}

// content.RegexError.
std::string RegexError(std::string msg, std::string_view re,
                       std::initializer_list<std::string_view> examples) {
  msg += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) msg += " or ";
    first = false;
    msg += "'";
    msg += e;
    msg += "', ";
  }
  msg += "regex used for validation is '";
  msg += re;
  msg += "')";
  return msg;
}

constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

}  // namespace

FieldPath FieldPath::Child(std::string_view name) const {
  FieldPath out;
  out.path_ = path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  return out;
}

FieldPath FieldPath::Index(size_t i) const {
  FieldPath out;
  out.path_ = path_ + "[" + std::to_string(i) + "]";
  return out;
}

FieldPath FieldPath::Key(std::string_view key) const {
  FieldPath out;
  out.path_ = path_ + "[" + std::string(key) + "]";
  return out;
}

std::string FieldError::ToString() const {
  std::string out = field + ": " + std::string(TypeText(type));
  if (type != Type::kRequired && type != Type::kForbidden) out += ": " + value;
  if (!detail.empty()) out += ": " + detail;
  return out;
}

FieldError Required(const FieldPath& path, std::string detail) {
  return {FieldError::Type::kRequired, path.str(), "\"\"", std::move(detail)};
}

FieldError Forbidden(const FieldPath& path, std::string detail) {
  return {FieldError::Type::kForbidden, path.str(), "\"\"", std::move(detail)};
}

FieldError Invalid(const FieldPath& path, std::string value, std::string detail) {
  return {FieldError::Type::kInvalid, path.str(), std::move(value), std::move(detail)};
}

FieldError Duplicate(const FieldPath& path, std::string value) {
  return {FieldError::Type::kDuplicate, path.str(), std::move(value), ""};
}

FieldError NotSupported(const FieldPath& path, std::string value,
                        const std::vector<std::string_view>& supported) {
  std::string detail;
  if (!supported.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) detail += ", ";
      detail += GoQuote(supported[i]);
    }
  }
  return {FieldError::Type::kNotSupported, path.str(), std::move(value), std::move(detail)};
}

std::string JsonList(const std::vector<std::string>& values) {
  if (values.empty()) return "null";
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += GoJsonString(values[i]);
  }
  return out + "]";
}

std::string AggregateMessage(const FieldErrors& errors) {
  std::vector<std::string> messages;
  messages.reserve(errors.size());
  for (const FieldError& e : errors) messages.push_back(e.ToString());
  return JoinAggregate(messages);
}

std::vector<std::string> QualifiedNameErrors(std::string_view value) {
  std::vector<std::string> errs;
  const size_t slash = value.find('/');
  std::string_view name = value;
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back(
          "a valid label key " +
          RegexError(std::string(kLabelKeyErrMsg), kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.emplace_back("prefix part must be non-empty");
    } else {
      if (prefix.size() > 253) errs.emplace_back("prefix part must be no more than 253 bytes");
      if (!api::IsDNS1123Subdomain(prefix)) {
        errs.push_back("prefix part " + RegexError(std::string(kDNS1123SubdomainErrMsg),
                                                   kDNS1123SubdomainFmt, {"example.com"}));
      }
    }
  }
  if (name.empty()) {
    errs.emplace_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.emplace_back("name part must be no more than 63 bytes");
  }
  if (!api::IsLabelToken(name)) {
    errs.push_back("name part " + RegexError(std::string(kLabelKeyErrMsg), kLabelKeyFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> LabelValueErrors(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.emplace_back("must be no more than 63 bytes");
  if (!value.empty() && !api::IsLabelToken(value)) {
    errs.push_back(RegexError(std::string(kLabelValueErrMsg), kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

}  // namespace stowage::config
