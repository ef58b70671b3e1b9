// The character-level shapes of Kubernetes names (apimachinery's util/validation), shared by
// label selector validation and configuration validation.
#pragma once

#include <string_view>

namespace stowage::api {

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], non-empty: the name part of a qualified name (label
// key) and the shape of a non-empty label value. Lengths are the caller's to check.
bool IsLabelToken(std::string_view s);

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*: an RFC 1123 subdomain's
// shape (e.g. the prefix of a qualified name). Lengths are the caller's to check.
bool IsDNS1123Subdomain(std::string_view s);

}  // namespace stowage::api
