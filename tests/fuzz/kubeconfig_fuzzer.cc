// Fuzzes kubeconfig parsing (client::ParseKubeconfig): the file named by --kubeconfig,
// --authentication-kubeconfig and --authorization-kubeconfig, resolved to a client configuration
// as clientcmd does. Relative paths resolve against a directory that does not exist, so the
// fuzzer exercises the parser rather than the machine's files.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pkg/client/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  const std::string base_dir = "/nonexistent/stowage-fuzz";
  (void)stowage::client::ParseKubeconfig(yaml, base_dir, "fuzz");
  (void)stowage::client::ParseKubeconfig(yaml, base_dir, "fuzz", "", "https://127.0.0.1:6443");
  return 0;
}
