// LineSplitter: turns the byte stream of a watch response into complete lines (the API server
// writes one JSON event per line), holding at most max_line bytes of an unfinished line so a
// hostile or broken server cannot make the client buffer without bound. Not thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "stowage/common/status.h"

namespace stowage::client {

class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line) : max_line_(max_line) {}

  // Feeds bytes; calls on_line for each complete non-empty line (without the newline). Stops
  // early and returns OK if on_line returns false (stopped() is then true). An over-long line
  // is an error.
  Status Feed(std::string_view data, const std::function<bool(std::string_view)>& on_line);
  bool stopped() const { return stopped_; }
  // Bytes of an unfinished line, held until its newline arrives.
  size_t pending() const { return partial_.size(); }

 private:
  size_t max_line_;
  std::string partial_;
  bool stopped_ = false;
};

}  // namespace stowage::client
