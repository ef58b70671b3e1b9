// Owning pointers for OpenSSL objects and the text of OpenSSL's error queue: internal helpers of
// pkg/server, not part of its interface. Stateless; the error queue is per thread in OpenSSL.
#pragma once

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/common/error_list.h"

namespace stowage::server::internal {

struct OpenSslFree {
  void operator()(BIO* p) const { BIO_free_all(p); }
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_NAME* p) const { X509_NAME_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
  void operator()(SSL* p) const { SSL_free(p); }
};
using BioPtr = std::unique_ptr<BIO, OpenSslFree>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslFree>;
using X509Ptr = std::unique_ptr<X509, OpenSslFree>;
using X509ExtPtr = std::unique_ptr<X509_EXTENSION, OpenSslFree>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, OpenSslFree>;
using SslPtr = std::unique_ptr<SSL, OpenSslFree>;

// Drains this thread's OpenSSL error queue into one line ("error:...; error:..."), or
// "unknown OpenSSL error" when it is empty.
inline std::string DrainOpenSslErrors() {
  std::vector<std::string> errors;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    errors.emplace_back(buf);
  }
  return errors.empty() ? "unknown OpenSSL error" : Join(errors, "; ");
}

// The contents of a memory BIO.
inline std::string BioContents(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

}  // namespace stowage::server::internal
