// Text from yaml-cpp made to read as go-yaml (Kubernetes' YAML reader) gives it.
#pragma once

#include <string>

namespace stowage {

// yaml-cpp decodes the double-quoted escapes "\N" and "\_" to the single bytes 0x85 and 0xA0,
// which are not UTF-8; go-yaml gives U+0085 and U+00A0. Every input is checked to be UTF-8
// before it is parsed, so a lone 0x85 or 0xA0 in a scalar can only come from one of these two
// escapes, and is rewritten to its UTF-8 form. Anything else is returned unchanged.
std::string FromYamlCpp(std::string scalar);

}  // namespace stowage
