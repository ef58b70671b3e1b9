#include "pkg/client/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <optional>

#include "pkg/client/token_file.h"
#include "pkg/common/file.h"
#include "pkg/common/yaml_text.h"

namespace stowage::client {
namespace {

// Finds the entry of a named list (clusters, users, contexts) and returns its inner map.
std::optional<YAML::Node> FindNamed(const YAML::Node& root, const char* list, const char* inner,
                                    std::string_view name) {
  const YAML::Node items = root[list];
  if (!items || !items.IsSequence()) return std::nullopt;
  for (const auto& item : items) {
    if (item.IsMap() && item["name"] && item["name"].as<std::string>() == name) {
      return item[inner] ? item[inner] : YAML::Node(YAML::NodeType::Map);
    }
  }
  return std::nullopt;
}

std::string Str(const YAML::Node& n, const char* key) {
  return n[key] && n[key].IsScalar() ? FromYamlCpp(n[key].Scalar()) : std::string();
}

std::string Resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

// Reads "<key>-data" (base64) or the file named by "<key>" into out.
Status DataOrFile(const YAML::Node& n, const std::string& key, const std::string& base_dir,
                  const std::string& where, std::string& out) {
  if (std::string data = Str(n, (key + "-data").c_str()); !data.empty()) {
    auto decoded = Base64Decode(data);
    if (!decoded.ok()) return decoded.status().WithPrefix(where + "." + key + "-data");
    out = std::move(*decoded);
    return OkStatus();
  }
  if (std::string file = Str(n, key.c_str()); !file.empty()) {
    auto content = ReadFile(Resolve(base_dir, file), 1u << 20);
    if (!content.ok()) return content.status().WithPrefix(where + "." + key);
    out = std::move(*content);
  }
  return OkStatus();
}

StatusOr<RestConfig> Parse(const YAML::Node& root, const std::string& base_dir,
                           const std::string& source, std::string_view context_override,
                           std::string_view master) {
  if (!root.IsMap()) return InvalidArgumentError(source + ": not a kubeconfig (expected a map)");
  std::string context_name(context_override);
  if (context_name.empty()) context_name = Str(root, "current-context");
  if (context_name.empty()) {
    return InvalidArgumentError(source + ": no current-context is set and no context was given");
  }
  auto context = FindNamed(root, "contexts", "context", context_name);
  if (!context) return NotFoundError(source + ": context \"" + context_name + "\" not found");
  RestConfig c;
  c.source = source + ", context \"" + context_name + "\"";

  std::string cluster_name = Str(*context, "cluster");
  auto cluster = FindNamed(root, "clusters", "cluster", cluster_name);
  if (!cluster) {
    return NotFoundError(c.source + ": cluster \"" + cluster_name + "\" not found");
  }
  std::string where = source + ": clusters[" + cluster_name + "]";
  c.server = master.empty() ? Str(*cluster, "server") : std::string(master);
  if (c.server.empty()) return InvalidArgumentError(where + ".server is empty");
  if ((*cluster)["insecure-skip-tls-verify"] &&
      (*cluster)["insecure-skip-tls-verify"].as<bool>(false)) {
    return InvalidArgumentError(where +
                                ".insecure-skip-tls-verify is true: stowage always "
                                "verifies the API server; set certificate-authority instead");
  }
  c.tls_server_name = Str(*cluster, "tls-server-name");
  if (auto s = DataOrFile(*cluster, "certificate-authority", base_dir, where, c.ca_pem); !s.ok()) {
    return s;
  }

  std::string user_name = Str(*context, "user");
  if (!user_name.empty()) {
    auto user = FindNamed(root, "users", "user", user_name);
    if (!user) return NotFoundError(c.source + ": user \"" + user_name + "\" not found");
    std::string uwhere = source + ": users[" + user_name + "]";
    if ((*user)["exec"] || (*user)["auth-provider"]) {
      return UnimplementedError(uwhere +
                                ": exec and auth-provider credential plugins are not "
                                "supported; use a token, tokenFile or client certificate");
    }
    if ((*user)["username"] || (*user)["password"]) {
      return UnimplementedError(uwhere + ": basic authentication is not supported");
    }
    if (auto s = DataOrFile(*user, "client-certificate", base_dir, uwhere, c.client_cert_pem);
        !s.ok()) {
      return s;
    }
    if (auto s = DataOrFile(*user, "client-key", base_dir, uwhere, c.client_key_pem); !s.ok()) {
      return s;
    }
    if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
      return InvalidArgumentError(uwhere +
                                  ": a client certificate needs both a certificate "
                                  "and a key");
    }
    c.bearer_token = Str(*user, "token");
    if (std::string f = Str(*user, "tokenFile"); !f.empty() && c.bearer_token.empty()) {
      c.bearer_token_file = Resolve(base_dir, f);
    }
  }
  return c;
}

}  // namespace

StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, const std::string& base_dir,
                                     const std::string& source, std::string_view context,
                                     std::string_view master) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    return Parse(root, base_dir, source, context, master);
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(source + ": malformed kubeconfig: " + e.what());
  } catch (const std::exception& e) {
    return InvalidArgumentError(source + ": malformed kubeconfig: " + e.what());
  }
}

StatusOr<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context,
                                    std::string_view master) {
  auto text = ReadFile(path, 4u << 20);
  if (!text.ok()) return text.status().WithPrefix("kubeconfig");
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return ParseKubeconfig(*text, dir, "kubeconfig \"" + path + "\"", context, master);
}

StatusOr<RestConfig> InClusterConfig(const std::string& sa_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    return FailedPreconditionError(
        "no kubeconfig or master was given and this is not a pod: "
        "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset");
  }
  RestConfig c;
  c.source = "in-cluster service account (" + sa_dir + ")";
  std::string h = host;
  if (h.find(':') != std::string::npos) h = "[" + h + "]";
  c.server = "https://" + h + ":" + port;
  auto ca = ReadFile(sa_dir + "/ca.crt", 1u << 20);
  if (!ca.ok()) return ca.status().WithPrefix("in-cluster CA");
  c.ca_pem = std::move(*ca);
  c.bearer_token_file = sa_dir + "/token";
  if (Status s = TokenFile(c.bearer_token_file, c.source).Load(); !s.ok()) return s;
  return c;
}

StatusOr<RestConfig> BuildConfig(std::string_view master, const std::string& kubeconfig_path) {
  if (kubeconfig_path.empty() && master.empty()) return InClusterConfig();
  if (kubeconfig_path.empty()) {
    RestConfig c;
    c.source = "--master";
    c.server = std::string(master);
    return c;
  }
  return LoadKubeconfig(kubeconfig_path, "", master);
}

}  // namespace stowage::client
