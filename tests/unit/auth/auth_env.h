// A DelegatingAuth over fake authentication and authorization API servers, a FakeClock and
// temporary CA files, for the unit tests of the whole chain.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "pkg/auth/delegating_auth.h"
#include "tests/testing/test_certs.h"
#include "tests/unit/auth/review_answers.h"

namespace stowage::auth::testing {

using stowage::testing::CertSpec;
using stowage::testing::MakeCA;
using stowage::testing::MakeCert;
using stowage::testing::TestCert;
using stowage::testing::Usage;

struct AuthEnv {
  FakeClock clock;
  FakeClient authn{clock};
  FakeClient authz{clock};
  Options options;
  std::unique_ptr<DelegatingAuth> auth;
  std::string dir;

  AuthEnv() {
    char tmpl[] = "/tmp/stowage-auth-test-XXXXXX";
    if (char* d = mkdtemp(tmpl)) dir = d;
  }
  ~AuthEnv() {
    auth.reset();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }

  // Writes content to <dir>/<name> and returns the path.
  std::string WriteFile(const std::string& name, const std::string& content) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::trunc) << content;
    return path;
  }

  // Builds the DelegatingAuth; a null client is asked for with the flags.
  Status Make(bool with_authn = true, bool with_authz = true) {
    auto a = DelegatingAuth::New(options, with_authn ? authn.client.get() : nullptr,
                                 with_authz ? authz.client.get() : nullptr, clock);
    if (!a.ok()) return a.status();
    auth = std::move(*a);
    return OkStatus();
  }

  // Answers every TokenReview: token "valid-<name>" is user <name> in group "g-<name>",
  // "master" is in system:masters, anything else is rejected.
  void ScriptTokens() {
    authn.api->Handle(kTokenReviewPath, [](const client::HttpRequest& r) {
      std::string token = BodyOf(r)["spec"]["token"];
      if (token == "master") return TokenReviewAnswer(true, "root", {"system:masters"});
      if (token.rfind("valid-", 0) == 0) {
        std::string name = token.substr(6);
        return TokenReviewAnswer(true, name, {"g-" + name});
      }
      return TokenReviewAnswer(false);
    });
  }
  // Answers every SubjectAccessReview: allowed when the user is "reader" and the path is
  // /metrics.
  void ScriptAccess() {
    authz.api->Handle(kSubjectAccessReviewPath, [](const client::HttpRequest& r) {
      auto spec = BodyOf(r)["spec"];
      bool allowed =
          spec["user"] == "reader" && spec["nonResourceAttributes"]["path"] == "/metrics";
      return SarAnswer(allowed);
    });
  }

  Decision Get(std::string_view path, std::string_view authorization = "",
               const std::vector<std::string>& chain = {}) {
    return auth->Check("GET", path, authorization, chain);
  }
  size_t TokenReviews() const { return authn.api->Count(kTokenReviewPath); }
  size_t AccessReviews() const { return authz.api->Count(kSubjectAccessReviewPath); }

  // A client certificate signed by ca, valid around the fake clock's wall time.
  TestCert ClientCert(const TestCert& ca, std::string cn, std::vector<std::string> orgs = {},
                      Usage usage = Usage::kClientAuth) {
    CertSpec s;
    s.common_name = std::move(cn);
    s.organizations = std::move(orgs);
    s.usage = usage;
    s.not_before = clock.WallNow() - std::chrono::hours(1);
    s.not_after = clock.WallNow() + std::chrono::hours(1);
    return MakeCert(s, &ca);
  }
};

}  // namespace stowage::auth::testing
