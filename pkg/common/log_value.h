// klog's rendering of one key=value pair, for messages that carry a multi-line value.
#pragma once

#include <string>
#include <string_view>

namespace stowage::logging {

// " key=value" as klog writes a value: quoted on one line, or a multi-line string as the "=<"
// block with each line indented by a tab, for messages built as LOG_INFO("msg{}", KeyValue(...)).
std::string KeyValue(std::string_view key, std::string_view value);

}  // namespace stowage::logging
