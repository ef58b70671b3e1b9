// The in-tree plugins compiled into stowage, listed explicitly (see STYLE.md: one auditable
// list, no static registration).
#pragma once

#include <string_view>
#include <vector>

#include "stowage/framework/registry.h"

namespace stowage::plugins {

// Every in-tree plugin stowage implements, under upstream's names.
framework::Registry NewInTreeRegistry();

// Upstream in-tree plugins (some in the default profile) that stowage does not implement yet.
// A profile that enables one starts without it, with a warning naming it.
const std::vector<std::string_view>& NotYetImplemented();

}  // namespace stowage::plugins
