#include "kube/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

namespace gangplank::kube {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("gangplank-kube-config-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    auto p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

// "hello" / "world" in base64.
constexpr const char* kHello64 = "aGVsbG8=";
constexpr const char* kWorld64 = "d29ybGQ=";

std::string two_context_config() {
  return std::string(R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: )") + kHello64 + R"(
    tls-server-name: kubernetes.default
- name: prod-cluster
  cluster:
    server: https://prod.example:443
    certificate-authority: certs/ca.pem
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    token: dev-token
- name: prod-user
  user:
    client-certificate: certs/client.pem
    client-key-data: )" + kWorld64 + R"(
    client-certificate-data: )" + kHello64 + R"(
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: prod
  context:
    cluster: prod-cluster
    user: prod-user
)";
}

TEST(KubeconfigTest, CurrentContextWithCaDataTokenAndServerName) {
  TempDir dir;
  auto file = dir.write("config", two_context_config());
  ClusterConfig cfg = LoadKubeconfig({file});
  EXPECT_EQ(cfg.server, "https://10.0.0.1:6443");
  EXPECT_EQ(cfg.tls.ca_data, "hello");
  EXPECT_EQ(cfg.tls.server_name, "kubernetes.default");
  EXPECT_FALSE(cfg.tls.insecure_skip_verify);
  EXPECT_EQ(cfg.token, "dev-token");
  EXPECT_EQ(cfg.namespace_, "team-a");
}

TEST(KubeconfigTest, NamedContextResolvesRelativePathsAgainstTheFilesFolder) {
  TempDir dir;
  dir.write("kube/certs/ca.pem", "CA");
  dir.write("kube/certs/client.pem", "CERT");
  auto file = dir.write("kube/config", two_context_config());
  ClusterConfig cfg = LoadKubeconfig({file}, "prod");
  EXPECT_EQ(cfg.server, "https://prod.example:443");
  EXPECT_EQ(cfg.tls.ca_file, (dir.path() / "kube/certs/ca.pem").string());
  EXPECT_TRUE(cfg.tls.insecure_skip_verify);
  // *-data wins over the file variant.
  EXPECT_EQ(cfg.tls.client_cert_data, "hello");
  EXPECT_EQ(cfg.tls.client_key_data, "world");
  EXPECT_EQ(cfg.namespace_, "default");
}

TEST(KubeconfigTest, TokenFileAndClientCertificateFiles) {
  TempDir dir;
  dir.write("token", "file-token\n");
  dir.write("c.pem", "C");
  dir.write("k.pem", "K");
  auto file = dir.write("config", R"(current-context: c
clusters: [{name: x, cluster: {server: "http://127.0.0.1:8080"}}]
users: [{name: u, user: {tokenFile: token, client-certificate: c.pem, client-key: k.pem}}]
contexts: [{name: c, context: {cluster: x, user: u}}]
)");
  ClusterConfig cfg = LoadKubeconfig({file});
  EXPECT_EQ(cfg.token_file, (dir.path() / "token").string());
  EXPECT_EQ(cfg.tls.client_cert_file, (dir.path() / "c.pem").string());
  EXPECT_EQ(cfg.tls.client_key_file, (dir.path() / "k.pem").string());
  TokenSource tokens(cfg.token, cfg.token_file);
  EXPECT_EQ(tokens.token(), "file-token");
}

TEST(KubeconfigTest, KubeconfigListMergesAndFirstDefinitionWins) {
  TempDir dir;
  auto first = dir.write("a", R"(current-context: one
clusters: [{name: x, cluster: {server: "https://first:1"}}]
contexts: [{name: one, context: {cluster: x}}]
)");
  auto second = dir.write("b", R"(current-context: two
clusters: [{name: x, cluster: {server: "https://second:2"}}, {name: y, cluster: {server: "https://y:3"}}]
contexts: [{name: two, context: {cluster: y}}]
)");
  EXPECT_EQ(LoadKubeconfig({first, second}).server, "https://first:1");
  EXPECT_EQ(LoadKubeconfig({first, second}, "two").server, "https://y:3");
  std::map<std::string, std::string> env = {{"KUBECONFIG", first + ":" + second}};
  auto lookup = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(LoadDefaultKubeconfig("", lookup).server, "https://first:1");
}

void expect_config_error(const std::string& text, const std::string& context, const std::string& needle) {
  TempDir dir;
  auto file = dir.write("config", text);
  try {
    LoadKubeconfig({file}, context);
    FAIL() << "expected ConfigError containing '" << needle << "'";
  } catch (const ConfigError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_NE(what.find(file), std::string::npos) << "error must name the file: " << what;
  }
}

TEST(KubeconfigTest, BadFilesGiveErrorsNamingFileAndKey) {
  expect_config_error("clusters: [unclosed", "", "not valid YAML");
  expect_config_error("current-context: nope\ncontexts: []\n", "", "context 'nope' not found");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a:1", certificate-authority-data: "%%%"}}]
contexts: [{name: c, context: {cluster: x}}]
)", "", "clusters[0] (x).cluster.certificate-authority-data is not valid base64");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {certificate-authority-data: "aGVsbG8="}}]
contexts: [{name: c, context: {cluster: x}}]
)", "", "cluster.server is missing");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a:1", certificate-authority: missing.pem}}]
contexts: [{name: c, context: {cluster: x}}]
)", "", "certificate-authority: cannot read");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a:1"}}]
users: [{name: u, user: {client-certificate-data: "aGVsbG8="}}]
contexts: [{name: c, context: {cluster: x, user: u}}]
)", "", "client-certificate without client-key");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "ftp://a:1"}}]
contexts: [{name: c, context: {cluster: x}}]
)", "", "must start with https:// or http://");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a:1", insecure-skip-tls-verify: maybe}}]
contexts: [{name: c, context: {cluster: x}}]
)", "", "insecure-skip-tls-verify must be true or false");
  expect_config_error(R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a:1"}}]
contexts: [{name: c, context: {cluster: y}}]
)", "", "context.cluster 'y' not found");
}

TEST(KubeconfigTest, MissingFileIsAClearError) {
  try {
    LoadKubeconfig({"/nonexistent/gangplank/kubeconfig"});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/gangplank/kubeconfig: cannot read file"), std::string::npos);
  }
}

TEST(InClusterConfigTest, BuildsServerFromEnvAndReadsFiles) {
  TempDir dir;
  InClusterPaths paths{dir.write("token", "tok1"), dir.write("ca.crt", "CA"), dir.write("namespace", "gpu-system\n")};
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}};
  auto lookup = [&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  ClusterConfig cfg = LoadInClusterConfig(lookup, paths);
  EXPECT_EQ(cfg.server, "https://10.96.0.1:443");
  EXPECT_EQ(cfg.token_file, paths.token);
  EXPECT_EQ(cfg.tls.ca_file, paths.ca);
  EXPECT_EQ(cfg.namespace_, "gpu-system");
  EXPECT_FALSE(cfg.tls.insecure_skip_verify);

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  EXPECT_EQ(LoadInClusterConfig(lookup, paths).server, "https://[fd00::1]:443");

  // No cluster CA: an error naming it, not a client that trusts the system's roots for the API server.
  InClusterPaths no_ca = paths;
  no_ca.ca = (dir.path() / "missing-ca.crt").string();
  try {
    LoadInClusterConfig(lookup, no_ca);
    ADD_FAILURE() << "a missing ca.crt was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the cluster CA " + no_ca.ca), std::string::npos) << e.what();
  }

  env.erase("KUBERNETES_SERVICE_PORT");
  EXPECT_THROW(LoadInClusterConfig(lookup, paths), ConfigError);
}

TEST(TokenSourceTest, RereadsTheFileAfterThePeriodAndAfterInvalidate) {
  TempDir dir;
  auto file = dir.write("token", "first");
  TokenSource tokens("", file, std::chrono::seconds(60));
  auto t0 = TokenSource::Clock::now();
  EXPECT_EQ(tokens.token(t0), "first");
  dir.write("token", "second");
  EXPECT_EQ(tokens.token(t0 + std::chrono::seconds(30)), "first");  // cached within the period
  EXPECT_EQ(tokens.token(t0 + std::chrono::seconds(61)), "second");  // re-read after a minute
  dir.write("token", "third");
  tokens.Invalidate();  // e.g. after a 401
  EXPECT_EQ(tokens.token(t0 + std::chrono::seconds(62)), "third");
  // A vanished file keeps the last good token rather than failing mid-rotation.
  std::filesystem::remove(file);
  tokens.Invalidate();
  EXPECT_EQ(tokens.token(t0 + std::chrono::seconds(63)), "third");
  TokenSource never("", dir.path().string() + "/absent");
  EXPECT_THROW(never.token(), ConfigError);
}

}  // namespace
}  // namespace gangplank::kube
