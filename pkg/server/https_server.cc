// SecureServer: listening, the accept loop with the connection cap, certificate polling, and
// the two-phase shutdown.
#include "pkg/server/https_server.h"

#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>

#include "pkg/common/logging.h"
#include "pkg/server/connection.h"
#include "pkg/server/server_core.h"
#include "stowage/common/mutex.h"

namespace stowage::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using internal::Connection;
using internal::Core;

constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);
constexpr auto kRefusalLogInterval = std::chrono::seconds(10);
constexpr auto kPoolStopGrace = std::chrono::milliseconds(200);

void Accept(const std::shared_ptr<Core>& core);

// Makes room for one more connection: evicts the connection that has waited longest on its client
// (no request yet, or a request body still arriving). False when every connection is busy with a
// request of its own: a handler running or a response being written.
bool MakeRoom(Core& core) {
  if (core.connections.size() < core.options.max_connections) return true;
  std::shared_ptr<Connection> victim;
  for (const auto& c : core.connections) {
    if (c->Evictable() && (!victim || c->since() < victim->since())) victim = c;
  }
  if (!victim) return false;
  VLOG(4, "connection limit {} reached: closing the connection idle longest",
       core.options.max_connections);
  victim->Close();
  return true;
}

void OnAccept(const std::shared_ptr<Core>& core, boost::system::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || core->shutting_down) return;
  if (ec) {
    // Out of descriptors or buffers: back off briefly instead of spinning (as Go's Serve does).
    LOG_WARN("secure serving: accept error: {}; retrying in {}ms", ec.message(),
             kAcceptRetryDelay.count());
    core->accept_retry_timer.expires_after(kAcceptRetryDelay);
    core->accept_retry_timer.async_wait([core](boost::system::error_code wait_ec) {
      if (!wait_ec && !core->shutting_down) Accept(core);
    });
    return;
  }
  if (!MakeRoom(*core)) {
    MonoTime now = RealClock().Now();
    if (now - core->last_refusal_log >= kRefusalLogInterval) {
      core->last_refusal_log = now;
      LOG_WARN(
          "secure serving: all {} connections are busy with requests; refusing new "
          "connections",
          core->options.max_connections);
    }
    boost::system::error_code ignored;
    socket.close(ignored);
  } else {
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    socket.set_option(asio::socket_base::keep_alive(true), ignored);
    auto conn = std::make_shared<Connection>(core, std::move(socket), core->certificate->Current());
    core->Register(conn);
    conn->Start();
  }
  Accept(core);
}

void Accept(const std::shared_ptr<Core>& core) {
  core->acceptor.async_accept([core](boost::system::error_code ec, tcp::socket socket) {
    OnAccept(core, ec, std::move(socket));
  });
}

void ScheduleReload(const std::shared_ptr<Core>& core) {
  if (!core->certificate->reloadable()) return;
  core->reload_timer.expires_after(core->options.cert_reload_interval);
  core->reload_timer.async_wait([core](boost::system::error_code ec) {
    if (ec || core->shutting_down) return;
    core->certificate->ReloadIfChanged();
    ScheduleReload(core);
  });
}

void BeginShutdown(const std::shared_ptr<Core>& core) {
  core->shutting_down = true;
  boost::system::error_code ignored;
  core->acceptor.close(ignored);
  core->reload_timer.cancel();
  core->accept_retry_timer.cancel();
  auto snapshot = core->connections;  // CloseWhenIdle may unregister while we iterate
  for (const auto& c : snapshot) c->CloseWhenIdle();
}

void ForceCloseAll(const std::shared_ptr<Core>& core) {
  auto snapshot = core->connections;
  if (!snapshot.empty()) {
    LOG_WARN("secure serving: closing {} connection(s) still busy after the shutdown grace period",
             snapshot.size());
  }
  for (const auto& c : snapshot) c->Close();
  core->work.reset();
}

StatusOr<tcp::endpoint> Listen(Core& core) {
  const auto& o = core.options;
  std::string where = (o.bind_address.find(':') != std::string::npos ? "[" + o.bind_address + "]"
                                                                     : o.bind_address) +
                      ":" + std::to_string(o.port);
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(o.bind_address, ec);
  if (ec) return InvalidArgumentError("--bind-address \"" + o.bind_address + "\": " + ec.message());
  tcp::endpoint ep(addr, o.port);
  core.acceptor.open(ep.protocol(), ec);
  if (!ec) core.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec && addr.is_v6() && addr.is_unspecified()) {
    core.acceptor.set_option(asio::ip::v6_only(false), ec);  // "::" serves IPv4 too, as Go
  }
  if (!ec) core.acceptor.bind(ep, ec);
  if (!ec) core.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (!ec) ep = core.acceptor.local_endpoint(ec);
  if (ec) return UnavailableError("failed to listen on " + where + ": " + ec.message());
  return ep;
}

}  // namespace

namespace internal {

void Core::PostToIo(std::function<void()> fn) {
  MutexLock l(mu);
  if (io_stopped) return;
  asio::post(io, std::move(fn));
}

void Core::Register(const std::shared_ptr<Connection>& c) {
  connections.push_back(c);
  c->registry_pos = std::prev(connections.end());
  MutexLock l(mu);
  ++open_connections;
}

void Core::Unregister(Connection* c) {
  connections.erase(c->registry_pos);
  MutexLock l(mu);
  --open_connections;
  cv.SignalAll();
}

}  // namespace internal

StatusOr<std::unique_ptr<SecureServer>> SecureServer::Start(ServingOptions options, Handler root) {
  Status valid = ValidateServingOptions(options);
  if (!valid.ok()) return valid;
  if (!root) return InvalidArgumentError("secure serving: no handler");
  auto cert = ResolveServingCertificate(options);
  if (!cert.ok()) return cert.status();
  auto core = std::make_shared<Core>(std::move(options), std::move(root), std::move(*cert));
  auto ep = Listen(*core);
  if (!ep.ok()) return ep.status();

  std::unique_ptr<SecureServer> server(new SecureServer(core));
  server->port_ = ep->port();
  std::string ip = ep->address().to_string();
  server->address_ =
      (ep->address().is_v6() ? "[" + ip + "]" : ip) + ":" + std::to_string(server->port_);
  core->work.emplace(core->io.get_executor());
  Accept(core);
  ScheduleReload(core);
  server->io_thread_ = std::thread([core] {
    core->io.run();
    {
      MutexLock l(core->mu);
      core->io_stopped = true;
    }
    // Run what handlers posted before io_stopped was set, so nothing is left queued.
    core->io.restart();
    core->io.poll();
  });
  LOG_INFO("Serving securely on {}", server->address_);
  return server;
}

SecureServer::~SecureServer() { Shutdown(); }

void SecureServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  auto core = core_;
  asio::post(core->io, [core] { BeginShutdown(core); });
  {
    MutexLock l(core->mu);
    const MonoTime deadline = std::chrono::steady_clock::now() + core->options.shutdown_grace;
    while (core->open_connections != 0 && core->cv.WaitUntil(core->mu, deadline)) {
    }
  }
  asio::post(core->io, [core] { ForceCloseAll(core); });
  if (io_thread_.joinable()) io_thread_.join();
  core->fast_pool.Stop(kPoolStopGrace);
  core->pool.Stop(kPoolStopGrace);
  LOG_INFO("Stopped listening on {}", address_);
}

size_t SecureServer::OpenConnectionsForTest() const {
  MutexLock l(core_->mu);
  return core_->open_connections;
}

}  // namespace stowage::server
