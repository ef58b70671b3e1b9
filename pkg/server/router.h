// Router: maps request paths to handlers like apiserver's PathRecorderMux, the mux kube-scheduler
// serves its endpoints from.
//
// A path registered with Handle matches exactly; a prefix registered with HandlePrefix (which must
// end in '/') matches every path starting with it, the prefix with the most '/' and then the
// longest winning. Exact matches win over prefixes. Nothing matched → Go's 404 "404 page not
// found\n". Paths are compared percent-decoded and uncleaned, as Go's URL.Path. Registering the
// same path twice is an error (upstream panics).
//
// Thread-safe: registration may happen while requests are served (reads take a shared lock).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pkg/server/http.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::server {

class Router {
 public:
  explicit Router(std::string name = "stowage") : name_(std::move(name)) {}

  Status Handle(const std::string& path, Handler handler) EXCLUDES(mu_);
  Status HandlePrefix(const std::string& prefix, Handler handler) EXCLUDES(mu_);
  // Replaces the 404 handler.
  void SetNotFoundHandler(Handler handler) EXCLUDES(mu_);

  // Dispatches req to its handler.
  Response Serve(const Request& req) const EXCLUDES(mu_);

  // Registered paths and prefixes, sorted (upstream's ListedPaths, served at "/" by apiservers).
  std::vector<std::string> ListedPaths() const EXCLUDES(mu_);

 private:
  const std::string name_;
  mutable SharedMutex mu_;
  std::map<std::string, Handler> exact_ GUARDED_BY(mu_);
  // Sorted best-first: most '/' then longest then lexicographic, as upstream's byPrefixPriority.
  std::vector<std::pair<std::string, Handler>> prefixes_ GUARDED_BY(mu_);
  Handler not_found_ GUARDED_BY(mu_);
};

}  // namespace stowage::server
