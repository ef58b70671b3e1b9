#include "tests/testing/fixtures.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace stowage::testing {

std::string FixturePath(std::string_view name) {
  return std::string(STOWAGE_SOURCE_DIR) + "/tests/fixtures/" + std::string(name);
}

std::string ReadFixture(std::string_view name) {
  std::ifstream in(FixturePath(name), std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read fixture %s\n", FixturePath(name).c_str());
    std::abort();
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace stowage::testing
