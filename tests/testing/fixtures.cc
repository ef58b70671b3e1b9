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

std::string UpstreamFailureReason(std::string_view key) {
  std::istringstream lines(ReadFixture("failure_messages.tsv"));
  for (std::string line; std::getline(lines, line);) {
    size_t tab = line.find('\t');
    if (line.starts_with('#') || tab == std::string::npos) continue;
    if (std::string_view(line).substr(0, tab) == key) return line.substr(tab + 1);
  }
  std::fprintf(stderr, "no reason %.*s in failure_messages.tsv\n", static_cast<int>(key.size()),
               key.data());
  std::abort();
}

}  // namespace stowage::testing
