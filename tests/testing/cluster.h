// TestCluster: a real kube-apiserver + etcd (tests/cluster/bin/testcluster) started by a test,
// on loopback, in a private temporary directory that is removed at the end.
//
// Stop() and Start() on the same object restart the same cluster (same port, credentials and
// objects), for tests of clients that must survive an apiserver restart. Not thread-safe: one
// test thread drives it. The binaries are built by tests/cluster/build, which the test command
// runs first; a missing binary fails the test with a message saying so.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "pkg/client/rest_client.h"
#include "pkg/client/rest_config.h"
#include "stowage/common/status.h"

namespace stowage::testing {

class TestCluster {
 public:
  // extra_args are passed to kube-apiserver (e.g. "--watch-cache=false").
  explicit TestCluster(std::vector<std::string> extra_args = {});
  ~TestCluster();

  // Also runs the PersistentVolume controllers and the test provisioner
  // (stowage.dev/test-provisioner), as testcluster -storage does; call before Start().
  void EnableStorageFlow() { storage_ = true; }
  // Runs the resourceclaim controller and the test DRA driver gpu.example.com, as testcluster
  // -dra does (docs/test-cluster.md, "The DRA flow"); call before Start().
  void EnableDraFlow() { dra_ = true; }
  // Starts the cluster (again) and waits until the apiserver is ready.
  Status Start();
  // Stops it with SIGTERM and waits for the process; keeps the data.
  void Stop();
  bool running() const { return pid_ > 0; }

  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  const std::string& server() const { return server_; }
  // The admin configuration read from the kubeconfig; qps/burst raised for test setup.
  client::RestConfig AdminConfig() const;
  // A client with admin rights; it stays valid across Stop()/Start() (same port and token).
  client::RestClient& Admin();

  // The directory of the test binaries (testcluster, kube-scheduler, kubectl).
  static std::string BinDir();

 private:
  std::vector<std::string> extra_args_;
  bool storage_ = false;
  bool dra_ = false;
  std::string dir_;
  std::string server_;
  pid_t pid_ = -1;
  std::unique_ptr<client::RestClient> admin_;
};

// One cluster shared by all tests of a test binary, started on first use.
TestCluster& SharedCluster();
// Makes SharedCluster() run the storage flow; a test binary calls it before any test starts
// (from a namespace-scope initializer). Returns true.
bool UseStorageFlow();
// Likewise for the DRA flow.
bool UseDraFlow();

}  // namespace stowage::testing
