// Access to files under tests/fixtures/ from tests, wherever the build directory is.
#pragma once

#include <string>
#include <string_view>

namespace stowage::testing {

// The absolute path of tests/fixtures/<name>.
std::string FixturePath(std::string_view name);
// The contents of tests/fixtures/<name>; aborts the test binary if it cannot be read.
std::string ReadFixture(std::string_view name);

// The failure reason upstream's plugins give under key in tests/fixtures/failure_messages.tsv
// (scripts/generate/failure-messages), e.g. "NodeName.Filter"; aborts if the key is missing.
std::string UpstreamFailureReason(std::string_view key);

}  // namespace stowage::testing
