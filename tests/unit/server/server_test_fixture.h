// A test fixture that serves a Router with a few probe handlers over real TLS on 127.0.0.1:
// /healthz (ping), /echo (echoes what the handler saw), /throw (throws), /cached (sets its own
// Cache-Control). Header-only, shared by the secure-server tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "pkg/server/healthz.h"
#include "pkg/server/https_server.h"
#include "pkg/server/router.h"

namespace stowage::server {

inline ServingOptions TestOptions() {
  ServingOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  return o;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(InstallHealthChecks(*router_, "/healthz", {}, nullptr).ok());
    ASSERT_TRUE(router_
                    ->Handle("/echo",
                             [](const Request& req) {
                               Response r;
                               r.body = req.method + " " + req.path + " q=" + req.query +
                                        " body=" + req.body +
                                        " ua=" + std::string(req.Header("user-agent")) +
                                        " from=" + req.remote_address + " certs=" +
                                        std::to_string(req.peer_certificates_der.size());
                               return r;
                             })
                    .ok());
    ASSERT_TRUE(
        router_
            ->Handle("/throw", [](const Request&) -> Response { throw std::runtime_error("boom"); })
            .ok());
    ASSERT_TRUE(router_
                    ->Handle("/cached",
                             [](const Request&) {
                               Response r;
                               r.headers.emplace_back("Cache-Control", "max-age=5");
                               return r;
                             })
                    .ok());
  }
  std::unique_ptr<SecureServer> StartServer(ServingOptions o = TestOptions()) {
    auto router = router_;
    auto s =
        SecureServer::Start(std::move(o), [router](const Request& r) { return router->Serve(r); });
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  std::shared_ptr<Router> router_ = std::make_shared<Router>("test");
};

}  // namespace stowage::server
