// Field-level validation errors in the shape and wording of upstream's
// k8s.io/apimachinery/pkg/util/validation/field, so that stowage reports a bad configuration
// with the same text kube-scheduler does, e.g.
//   profiles[0].pluginConfig[1].args.minCandidateNodesPercentage: Invalid value: 101: not in
//   valid range [0, 100]
// A list of errors is reported as upstream's utilerrors.Aggregate prints it: one error alone,
// several as "[a, b]" with duplicates dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/common/go_quote.h"

namespace stowage::config {

// A field path such as "profiles[0].plugins.score.enabled[1].weight".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : path_(root) {}

  FieldPath Child(std::string_view name) const;
  FieldPath Index(size_t i) const;
  FieldPath Key(std::string_view key) const;  // "[key]", as field.Path.Key
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

struct FieldError {
  enum class Type : uint8_t { kRequired, kInvalid, kNotSupported, kDuplicate, kForbidden };
  Type type = Type::kInvalid;
  std::string field;
  std::string value;  // already rendered as upstream prints it: 5, "text", ["a"], {"k":1}
  std::string detail;

  // "<field>: <Type text>[: <value>][: <detail>]".
  std::string ToString() const;
};
using FieldErrors = std::vector<FieldError>;

// The constructors of upstream's field package. Values are rendered by the caller with the
// helpers below, as Go renders them: strings quoted, numbers bare, other types as JSON.
FieldError Required(const FieldPath& path, std::string detail);
FieldError Forbidden(const FieldPath& path, std::string detail);
FieldError Invalid(const FieldPath& path, std::string value, std::string detail);
FieldError Duplicate(const FieldPath& path, std::string value);
FieldError NotSupported(const FieldPath& path, std::string value,
                        const std::vector<std::string_view>& supported);

// A []string rendered as JSON; an empty list is "null", as a nil Go slice.
std::string JsonList(const std::vector<std::string>& values);

// Upstream's Aggregate.Error() text of the errors ("" for none).
std::string AggregateMessage(const FieldErrors& errors);

// content.IsLabelKey (IsQualifiedName): what is wrong with a qualified name, in upstream's
// words; empty when valid.
std::vector<std::string> QualifiedNameErrors(std::string_view value);
// content.IsLabelValue: what is wrong with a label value; empty when valid.
std::vector<std::string> LabelValueErrors(std::string_view value);

}  // namespace stowage::config
