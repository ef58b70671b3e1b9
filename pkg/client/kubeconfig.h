// Client configuration from a kubeconfig file, from the in-cluster service-account environment,
// or from --master, resolved the way client-go's clientcmd.BuildConfigFromFlags resolves them.
//
// Supported: contexts (current-context or an explicit one), clusters with server,
// certificate-authority / certificate-authority-data and tls-server-name, users with
// client-certificate(-data), client-key(-data), token and tokenFile. Relative file paths are
// resolved against the kubeconfig's directory. Refused with a clear error: insecure-skip-tls-verify
// (stowage always verifies the server), exec and auth-provider plugins, basic auth.
#pragma once

#include <string>
#include <string_view>

#include "pkg/client/rest_config.h"
#include "stowage/common/status.h"

namespace stowage::client {

// Reads the kubeconfig at path. context selects a context instead of current-context; master,
// when not empty, replaces the cluster's server URL (kube-scheduler's --master).
StatusOr<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context = "",
                                    std::string_view master = "");

// The same from kubeconfig text; base_dir resolves relative paths, source names it in errors.
StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, const std::string& base_dir,
                                     const std::string& source, std::string_view context = "",
                                     std::string_view master = "");

// The configuration of a pod: KUBERNETES_SERVICE_HOST/PORT and the service account's token and
// CA under sa_dir.
StatusOr<RestConfig> InClusterConfig(
    const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// clientcmd.BuildConfigFromFlags: with neither a kubeconfig nor a master, the in-cluster
// configuration; otherwise the kubeconfig (if any) with master overriding its server.
StatusOr<RestConfig> BuildConfig(std::string_view master, const std::string& kubeconfig_path);

}  // namespace stowage::client
