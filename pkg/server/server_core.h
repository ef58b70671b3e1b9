// Internal to pkg/server: the state a SecureServer shares with its connections and handler
// threads. Not part of the package interface.
//
// Threading: one I/O thread runs io; everything marked "I/O thread" is touched only there.
// Handler threads (the two WorkerPools) only read the immutable fields and call PostToIo().
// Connections and queued handler tasks hold the Core by shared_ptr, so a handler still running
// after Shutdown() (one blocked on the network) finds everything it touches alive.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <optional>

#include "pkg/server/http.h"
#include "pkg/server/serving_certificate.h"
#include "pkg/server/serving_options.h"
#include "pkg/server/worker_pool.h"
#include "stowage/common/clock.h"
#include "stowage/common/mutex.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::server::internal {

class Connection;

struct Core {
  Core(ServingOptions opts, Handler root, std::unique_ptr<ServingCertificate> cert)
      : options(std::move(opts)),
        handler(std::move(root)),
        certificate(std::move(cert)),
        pool("secure-serving", options.handler_threads),
        fast_pool("secure-serving-health", options.fast_lane_threads),
        acceptor(io),
        reload_timer(io),
        accept_retry_timer(io) {}

  // Whether req's path runs on the fast lane.
  bool IsFastLane(const std::string& path) const {
    for (const auto& p : options.fast_lane_paths) {
      if (path == p || (path.size() > p.size() && path.starts_with(p) && path[p.size()] == '/')) {
        return true;
      }
    }
    return false;
  }

  // Posts fn to the I/O thread unless the server has stopped running it (then fn is dropped),
  // so no task is queued where nothing will ever run or free it.
  void PostToIo(std::function<void()> fn);

  // I/O thread: connection bookkeeping.
  void Register(const std::shared_ptr<Connection>& c);
  void Unregister(Connection* c);

  const ServingOptions options;
  const Handler handler;
  const std::unique_ptr<ServingCertificate> certificate;
  WorkerPool pool;
  WorkerPool fast_pool;

  boost::asio::io_context io;  // declared before the I/O objects that use it
  boost::asio::ip::tcp::acceptor acceptor;
  boost::asio::steady_timer reload_timer;
  boost::asio::steady_timer accept_retry_timer;
  // Keeps io.run() going while requests are with handlers (no I/O pending) until shutdown.
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;

  // I/O thread only.
  std::list<std::shared_ptr<Connection>> connections;
  bool shutting_down = false;
  MonoTime last_refusal_log{};

  Mutex mu;
  CondVar cv;  // open_connections changed
  size_t open_connections GUARDED_BY(mu) = 0;
  bool io_stopped GUARDED_BY(mu) = false;
};

}  // namespace stowage::server::internal
