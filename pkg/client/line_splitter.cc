#include "pkg/client/line_splitter.h"

namespace stowage::client {

Status LineSplitter::Feed(std::string_view data,
                          const std::function<bool(std::string_view)>& on_line) {
  while (!data.empty() && !stopped_) {
    size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      if (partial_.size() + data.size() > max_line_) {
        return ResourceExhaustedError("watch event longer than " + std::to_string(max_line_) +
                                      " bytes");
      }
      partial_.append(data);
      return OkStatus();
    }
    std::string_view line = data.substr(0, nl);
    data.remove_prefix(nl + 1);
    if (!partial_.empty()) {
      if (partial_.size() + line.size() > max_line_) {
        return ResourceExhaustedError("watch event longer than " + std::to_string(max_line_) +
                                      " bytes");
      }
      partial_.append(line);
      std::string full = std::move(partial_);
      partial_.clear();
      if (full.find_first_not_of(" \r\t") != std::string::npos && !on_line(full)) stopped_ = true;
    } else if (line.find_first_not_of(" \r\t") != std::string_view::npos && !on_line(line)) {
      stopped_ = true;
    }
  }
  return OkStatus();
}

}  // namespace stowage::client
