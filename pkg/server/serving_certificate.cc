// File-backed and fixed serving certificates with stat-polling reload.
#include "pkg/server/serving_certificate.h"

#include <sys/stat.h>

#include "pkg/common/file.h"
#include "pkg/common/logging.h"
#include "stowage/common/mutex.h"

namespace stowage::server {

constexpr size_t kMaxPemBytes = 1 << 20;  // certificate bundles are a few KiB

ServingCertificate::FileStamp ServingCertificate::Stamp(const std::string& path) {
  FileStamp s;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return s;
  s.exists = true;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = st.st_size;
  s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return s;
}

StatusOr<std::unique_ptr<ServingCertificate>> ServingCertificate::FromMemory(
    const TlsSettings& settings, const CertKeyPem& cert, std::string name) {
  auto ctx = NewServerTlsContext(settings, cert, name + " certificate", name + " key");
  if (!ctx.ok()) return ctx.status();
  std::unique_ptr<ServingCertificate> sc(new ServingCertificate(settings, "", ""));
  MutexLock l(sc->mu_);
  sc->current_ = *ctx;
  sc->current_pem_ = cert;
  return sc;
}

StatusOr<std::unique_ptr<ServingCertificate>> ServingCertificate::FromFiles(
    const TlsSettings& settings, std::string cert_file, std::string key_file) {
  if (cert_file.empty() || key_file.empty()) {
    return InvalidArgumentError(
        "serving certificate: both a certificate file and a key file are "
        "required (got cert \"" +
        cert_file + "\", key \"" + key_file + "\")");
  }
  std::unique_ptr<ServingCertificate> sc(
      new ServingCertificate(settings, std::move(cert_file), std::move(key_file)));
  FileStamp cert_stamp = Stamp(sc->cert_file_);
  FileStamp key_stamp = Stamp(sc->key_file_);
  CertKeyPem pem;
  auto ctx = sc->Load(&pem);
  if (!ctx.ok()) return ctx.status();
  MutexLock l(sc->mu_);
  sc->current_ = *ctx;
  sc->current_pem_ = std::move(pem);
  sc->cert_stamp_ = cert_stamp;
  sc->key_stamp_ = key_stamp;
  return sc;
}

StatusOr<TlsContextPtr> ServingCertificate::Load(CertKeyPem* pem) const {
  auto cert = ReadFile(cert_file_, kMaxPemBytes);
  if (!cert.ok()) return cert.status().WithPrefix("--tls-cert-file");
  auto key = ReadFile(key_file_, kMaxPemBytes);
  if (!key.ok()) return key.status().WithPrefix("--tls-private-key-file");
  pem->cert_pem = std::move(*cert);
  pem->key_pem = std::move(*key);
  return NewServerTlsContext(settings_, *pem, cert_file_, key_file_);
}

TlsContextPtr ServingCertificate::Current() const {
  MutexLock l(mu_);
  return current_;
}

bool ServingCertificate::ReloadIfChanged() {
  if (!reloadable()) return false;
  // Stamps are taken before reading so that a write racing with the read shows up as a change
  // at the next poll.
  FileStamp cert_stamp = Stamp(cert_file_);
  FileStamp key_stamp = Stamp(key_file_);
  {
    MutexLock l(mu_);
    if (cert_stamp == cert_stamp_ && key_stamp == key_stamp_) return false;
    cert_stamp_ = cert_stamp;
    key_stamp_ = key_stamp;
  }
  CertKeyPem pem;
  auto ctx = Load(&pem);
  if (!ctx.ok()) {
    LOG_ERROR("Failed to reload the serving certificate ({}, {}); keeping the previous one: {}",
              cert_file_, key_file_, ctx.status().message());
    return false;
  }
  MutexLock l(mu_);
  if (pem.cert_pem == current_pem_.cert_pem && pem.key_pem == current_pem_.key_pem) return false;
  current_ = *ctx;
  current_pem_ = std::move(pem);
  VLOG(2, "Loaded a new cert/key pair from {} and {}", cert_file_, key_file_);
  return true;
}

}  // namespace stowage::server
