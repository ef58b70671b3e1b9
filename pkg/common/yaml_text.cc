#include "pkg/common/yaml_text.h"

#include "pkg/common/go_quote.h"

namespace stowage {

std::string FromYamlCpp(std::string scalar) {
  size_t i = 0;
  size_t len = 0;
  // The common case, valid UTF-8, costs one scan and no copy.
  while (i < scalar.size() && DecodeRune(scalar, i, len) >= 0) i += len;
  if (i == scalar.size()) return scalar;
  std::string out = scalar.substr(0, i);
  for (; i < scalar.size(); i += len) {
    if (DecodeRune(scalar, i, len) < 0) {
      const auto byte = static_cast<unsigned char>(scalar[i]);
      if (byte == 0x85 || byte == 0xA0) {
        out.push_back('\xC2');
        out.push_back(static_cast<char>(byte));
        continue;
      }
    }
    out.append(scalar, i, len);
  }
  return out;
}

}  // namespace stowage
