// Where the API server is and how to authenticate: in-cluster service account or kubeconfig.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/base64.h"
#include "net/http_client.h"

namespace gangplank::kube {

// Bad or missing configuration. The message names the file and the offending key.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ClusterConfig {
  std::string server;  // scheme://host:port
  net::ClientTlsOptions tls;
  std::string token;       // static bearer token (kubeconfig `token`)
  std::string token_file;  // bearer token file, re-read periodically (in-cluster, kubeconfig `tokenFile`)
  std::string username;    // basic auth (kubeconfig username/password), rarely used
  std::string password;
  std::string namespace_ = "default";
  std::string source;  // human-readable origin, for logs
};

// Env lookup seam so tests need not touch the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnv();

struct InClusterPaths {
  std::string token = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_file = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};

// In-cluster config: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (IPv6 bracketed), the
// service-account token file (re-read, never cached forever) and CA. Throws ConfigError("not in cluster")
// when the env vars are missing or the token file is unreadable.
ClusterConfig LoadInClusterConfig(const EnvLookup& env = ProcessEnv(), const InClusterPaths& paths = {});

// Kubeconfig from one or more files (KUBECONFIG semantics: merged, first definition of a name wins,
// first current-context wins). context empty = current-context. Relative paths resolve against the
// folder of the file that defined the entry.
ClusterConfig LoadKubeconfig(const std::vector<std::string>& files, const std::string& context = "");
// $KUBECONFIG (':'-separated) or ~/.kube/config.
ClusterConfig LoadDefaultKubeconfig(const std::string& context = "", const EnvLookup& env = ProcessEnv());

using base::Base64Decode;  // kubeconfig *-data fields; throws std::invalid_argument on bad input

// Bearer token from a static string or a file that is re-read at least every refresh period and after
// invalidate() (call it on a 401). Thread-safe.
class TokenSource {
 public:
  using Clock = std::chrono::steady_clock;
  TokenSource(std::string static_token, std::string token_file,
              std::chrono::seconds refresh = std::chrono::seconds(60));

  // Empty when no token is configured. Throws ConfigError if the file can never be read.
  std::string token(Clock::time_point now = Clock::now());
  void Invalidate();
  bool empty() const { return static_token_.empty() && token_file_.empty(); }

 private:
  const std::string static_token_;
  const std::string token_file_;
  const std::chrono::seconds refresh_;
  std::mutex mutex_;
  std::string cached_;
  std::optional<Clock::time_point> read_at_;
};

}  // namespace gangplank::kube
