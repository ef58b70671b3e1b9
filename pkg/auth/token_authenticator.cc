#include "pkg/auth/token_authenticator.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdint>

#include "pkg/auth/reviews.h"
#include "pkg/common/logging.h"
#include "stowage/common/assert.h"

namespace stowage::auth {
namespace {

void AppendLength(std::string& s, size_t n) {
  uint32_t v = static_cast<uint32_t>(n);
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
}

}  // namespace

TokenAuthenticator::TokenAuthenticator(client::RestClient& client, Duration cache_ttl, Clock& clock,
                                       size_t max_cache_entries)
    : client_(client), ttl_(cache_ttl), cache_(clock, max_cache_entries) {
  hmac_key_.resize(32);
  RELEASE_ASSERT(RAND_bytes(reinterpret_cast<unsigned char*>(hmac_key_.data()),
                            static_cast<int>(hmac_key_.size())) == 1,
                 "no randomness for the token cache key");
}

std::string TokenAuthenticator::CacheKey(std::string_view token) const {
  // Length-prefixed token followed by the (empty) audience list, as upstream's keyFunc, so the
  // key would stay unambiguous if audiences were ever added.
  std::string msg;
  msg.reserve(token.size() + 8);
  AppendLength(msg, token.size());
  msg.append(token);
  AppendLength(msg, 0);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  unsigned char* r =
      HMAC(EVP_sha256(), hmac_key_.data(), static_cast<int>(hmac_key_.size()),
           reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), out, &len);
  OPENSSL_cleanse(msg.data(), msg.size());  // the token must not linger in freed memory
  RELEASE_ASSERT(r != nullptr, "HMAC-SHA256 failed");
  return std::string(reinterpret_cast<char*>(out), len);
}

StatusOr<std::optional<UserInfo>> TokenAuthenticator::Authenticate(std::string_view token) {
  std::string key = CacheKey(token);
  if (auto hit = cache_.Get(key)) return *hit;
  return flights_.Do(key, [&]() -> Result {
    // A lookup that finished while this one waited for the lock has filled the cache.
    if (auto hit = cache_.Get(key)) return *hit;
    Result r = Review(token);
    if (r.ok()) cache_.Set(key, *r, ttl_);
    return r;
  });
}

StatusOr<std::optional<UserInfo>> TokenAuthenticator::Review(std::string_view token) {
  std::string body = EncodeTokenReview(token);
  reviews_sent_.fetch_add(1);
  auto answer = client_.Post(kTokenReviewPath, body);
  OPENSSL_cleanse(body.data(), body.size());
  if (!answer.ok()) {
    // RestClient's errors carry the verb, path and server message, never the request body.
    LOG_ERROR("Failed to make webhook authenticator request: {}", answer.status().message());
    return Status(answer.status().code(),
                  ClientErrorText(answer.status(), "POST", kTokenReviewPath));
  }
  auto review = DecodeTokenReview(*answer);
  if (!review.ok()) return review.status();
  if (!review->authenticated) {
    if (!review->error.empty()) return UnauthenticatedError(review->error);
    return std::optional<UserInfo>();
  }
  return std::optional<UserInfo>(std::move(review->user));
}

}  // namespace stowage::auth
