// ServingCertificate: the TLS context new connections use, either fixed (a generated, in-memory
// certificate) or backed by a certificate and key file that are re-read when they change.
//
// Change detection polls stat() of both files (device, inode, size, mtime with nanoseconds):
// cheap enough to run every few seconds, and it sees atomic renames and Kubernetes Secret volume
// symlink swaps (stat follows the link) as well as in-place rewrites. When something changed, both
// files are read; identical content is a no-op. A pair that cannot be read, parsed or matched
// keeps the previous context and logs one error naming the file and the reason (once per change,
// not once per poll). Upstream re-reads on fsnotify events plus a one-minute resync.
//
// Thread-safe: Current() may race with ReloadIfChanged(); a connection holds the context it got.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "pkg/server/tls_context.h"
#include "stowage/common/mutex.h"
#include "stowage/common/status.h"
#include "stowage/common/thread_annotations.h"

namespace stowage::server {

class ServingCertificate {
 public:
  // A fixed certificate (e.g. the generated self-signed one); "name" appears in logs.
  static StatusOr<std::unique_ptr<ServingCertificate>> FromMemory(const TlsSettings& settings,
                                                                  const CertKeyPem& cert,
                                                                  std::string name);
  // A certificate loaded from files now (errors are fatal at start) and reloaded on change.
  static StatusOr<std::unique_ptr<ServingCertificate>> FromFiles(const TlsSettings& settings,
                                                                 std::string cert_file,
                                                                 std::string key_file);

  // The context for a new connection; never null.
  TlsContextPtr Current() const EXCLUDES(mu_);

  // For file-backed certificates: checks the files and installs a new context when they changed
  // and load. Returns true when a new certificate was installed. No-op for fixed certificates.
  bool ReloadIfChanged() EXCLUDES(mu_);

  bool reloadable() const { return !cert_file_.empty(); }

 private:
  struct FileStamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    long long mtime_ns = -1;
    bool exists = false;
    bool operator==(const FileStamp&) const = default;
  };
  static FileStamp Stamp(const std::string& path);
  // Reads and parses both files into a context.
  StatusOr<TlsContextPtr> Load(CertKeyPem* pem) const;

  ServingCertificate(TlsSettings settings, std::string cert_file, std::string key_file)
      : settings_(std::move(settings)),
        cert_file_(std::move(cert_file)),
        key_file_(std::move(key_file)) {}

  const TlsSettings settings_;
  const std::string cert_file_;  // empty for a fixed certificate
  const std::string key_file_;

  mutable Mutex mu_;
  TlsContextPtr current_ GUARDED_BY(mu_);
  CertKeyPem current_pem_ GUARDED_BY(mu_);
  FileStamp cert_stamp_ GUARDED_BY(mu_);
  FileStamp key_stamp_ GUARDED_BY(mu_);
};

}  // namespace stowage::server
