// The demo's GPU part: a pod with a claim template and a pod asking for an extended resource a
// DeviceClass provides, and the device each was given (gpu.cc).
#pragma once

#include <string>

#include "pkg/client/rest_client.h"

namespace stowage::demo {

// Creates the two pods (and the template) in namespace demo, waits for them to be bound, and
// prints their claims and devices; 0 when both got a device.
int RunGpu(client::RestClient& api, const std::string& scheduler);

}  // namespace stowage::demo
