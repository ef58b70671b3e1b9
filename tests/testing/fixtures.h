// Access to files under tests/fixtures/ from tests, wherever the build directory is.
#pragma once

#include <string>
#include <string_view>

namespace stowage::testing {

// The absolute path of tests/fixtures/<name>.
std::string FixturePath(std::string_view name);
// The contents of tests/fixtures/<name>; aborts the test binary if it cannot be read.
std::string ReadFixture(std::string_view name);

}  // namespace stowage::testing
