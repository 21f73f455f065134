#include "kube/config.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace gangplank::kube {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string JoinHostPort(const std::string& host, const std::string& port) {
  if (host.find(':') != std::string::npos && host.front() != '[') return "[" + host + "]:" + port;
  return host + ":" + port;
}

// One named entry (cluster, user or context) and the file it came from.
struct Entry {
  YAML::Node node;
  std::string file;
  std::string where;  // e.g. "clusters[2]"
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::string current_context_file;
};

[[noreturn]] void Fail(const std::string& file, const std::string& what) {
  throw ConfigError("kubeconfig " + file + ": " + what);
}

std::string scalar(const YAML::Node& parent, const char* key, const Entry& e, const std::string& path) {
  YAML::Node v = parent[key];
  if (!v) return {};
  if (!v.IsScalar()) Fail(e.file, e.where + "." + path + key + " must be a string");
  return v.as<std::string>();
}

bool boolean(const YAML::Node& parent, const char* key, const Entry& e, const std::string& path) {
  YAML::Node v = parent[key];
  if (!v) return false;
  try {
    return v.as<bool>();
  } catch (const YAML::Exception&) {
    Fail(e.file, e.where + "." + path + key + " must be true or false");
  }
}

std::string Resolve(const std::string& value, const Entry& e) {
  if (value.empty() || fs::path(value).is_absolute()) return value;
  return (fs::path(e.file).parent_path() / value).lexically_normal().string();
}

std::string DecodeData(const std::string& value, const Entry& e, const std::string& key) {
  try {
    return Base64Decode(value);
  } catch (const std::invalid_argument&) {
    Fail(e.file, e.where + "." + key + " is not valid base64");
  }
}

void Collect(const YAML::Node& root, const char* section, const std::string& file, std::map<std::string, Entry>& out) {
  YAML::Node list = root[section];
  if (!list || list.IsNull()) return;
  if (!list.IsSequence()) Fail(file, std::string(section) + " must be a list");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = std::string(section) + "[" + std::to_string(i) + "]";
    const YAML::Node& item = list[i];
    if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) Fail(file, where + " has no name");
    std::string name = item["name"].as<std::string>();
    out.emplace(name, Entry{item, file, where + " (" + name + ")"});  // first file wins
  }
}

void MergeFile(const std::string& file, Merged& merged) {
  auto text = ReadText(file);
  if (!text) throw ConfigError("kubeconfig " + file + ": cannot read file");
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    Fail(file, std::string("not valid YAML: ") + e.what());
  }
  if (root.IsNull()) return;  // empty file: allowed in a KUBECONFIG list
  if (!root.IsMap()) Fail(file, "top level must be a mapping");
  Collect(root, "clusters", file, merged.clusters);
  Collect(root, "users", file, merged.users);
  Collect(root, "contexts", file, merged.contexts);
  if (merged.current_context.empty() && root["current-context"] && root["current-context"].IsScalar()) {
    merged.current_context = root["current-context"].as<std::string>();
    merged.current_context_file = file;
  }
}

void ApplyCluster(const Entry& e, ClusterConfig& cfg) {
  YAML::Node c = e.node["cluster"];
  if (!c || !c.IsMap()) Fail(e.file, e.where + ".cluster is missing");
  cfg.server = scalar(c, "server", e, "cluster.");
  if (cfg.server.empty()) Fail(e.file, e.where + ".cluster.server is missing");
  if (cfg.server.rfind("https://", 0) != 0 && cfg.server.rfind("http://", 0) != 0) {
    Fail(e.file, e.where + ".cluster.server '" + cfg.server + "' must start with https:// or http://");
  }
  if (auto data = scalar(c, "certificate-authority-data", e, "cluster."); !data.empty()) {
    cfg.tls.ca_data = DecodeData(data, e, "cluster.certificate-authority-data");
  } else if (auto file = scalar(c, "certificate-authority", e, "cluster."); !file.empty()) {
    cfg.tls.ca_file = Resolve(file, e);
    if (!ReadText(cfg.tls.ca_file)) {
      Fail(e.file, e.where + ".cluster.certificate-authority: cannot read '" + cfg.tls.ca_file + "'");
    }
  }
  cfg.tls.insecure_skip_verify = boolean(c, "insecure-skip-tls-verify", e, "cluster.");
  cfg.tls.server_name = scalar(c, "tls-server-name", e, "cluster.");
}

void ApplyUser(const Entry& e, ClusterConfig& cfg) {
  YAML::Node u = e.node["user"];
  if (!u || u.IsNull()) return;  // anonymous
  if (!u.IsMap()) Fail(e.file, e.where + ".user must be a mapping");
  auto file_or_data = [&](const char* data_key, const char* file_key, std::string& data, std::string& file) {
    if (auto d = scalar(u, data_key, e, "user."); !d.empty()) {
      data = DecodeData(d, e, std::string("user.") + data_key);
    } else if (auto f = scalar(u, file_key, e, "user."); !f.empty()) {
      file = Resolve(f, e);
      if (!ReadText(file)) Fail(e.file, e.where + ".user." + file_key + ": cannot read '" + file + "'");
    }
  };
  file_or_data("client-certificate-data", "client-certificate", cfg.tls.client_cert_data, cfg.tls.client_cert_file);
  file_or_data("client-key-data", "client-key", cfg.tls.client_key_data, cfg.tls.client_key_file);
  bool has_cert = !cfg.tls.client_cert_data.empty() || !cfg.tls.client_cert_file.empty();
  bool has_key = !cfg.tls.client_key_data.empty() || !cfg.tls.client_key_file.empty();
  if (has_cert != has_key) {
    Fail(e.file, e.where + ".user has " + (has_cert ? "client-certificate without client-key" : "client-key without client-certificate"));
  }
  cfg.token = scalar(u, "token", e, "user.");
  if (auto f = scalar(u, "tokenFile", e, "user."); !f.empty()) {
    cfg.token_file = Resolve(f, e);
    if (!ReadText(cfg.token_file)) Fail(e.file, e.where + ".user.tokenFile: cannot read '" + cfg.token_file + "'");
  }
  cfg.username = scalar(u, "username", e, "user.");
  cfg.password = scalar(u, "password", e, "user.");
  if (u["exec"] || u["auth-provider"]) {
    if (cfg.token.empty() && cfg.token_file.empty() && !has_cert) {
      Fail(e.file, e.where + ".user uses exec/auth-provider credentials, which this client does not support");
    }
  }
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe): read-only use
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

ClusterConfig LoadInClusterConfig(const EnvLookup& env, const InClusterPaths& paths) {
  auto host = env("KUBERNETES_SERVICE_HOST");
  auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port || host->empty() || port->empty()) {
    throw ConfigError("not in cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  if (!ReadText(paths.token)) throw ConfigError("not in cluster: cannot read service-account token " + paths.token);
  ClusterConfig cfg;
  cfg.server = "https://" + JoinHostPort(*host, *port);
  cfg.token_file = paths.token;
  // client-go logs a missing ca.crt and goes on with the system's roots; a public root must not vouch
  // for the API server, so here it is an error.
  if (!ReadText(paths.ca)) {
    throw ConfigError("in cluster: cannot read the cluster CA " + paths.ca + " (mounted with the ServiceAccount token)");
  }
  cfg.tls.ca_file = paths.ca;
  if (auto ns = ReadText(paths.namespace_file); ns && !Trim(*ns).empty()) cfg.namespace_ = Trim(*ns);
  cfg.source = "in-cluster";
  return cfg;
}

ClusterConfig LoadKubeconfig(const std::vector<std::string>& files, const std::string& context) {
  if (files.empty()) throw ConfigError("kubeconfig: no file given");
  Merged merged;
  for (const auto& f : files) MergeFile(f, merged);
  std::string name = context.empty() ? merged.current_context : context;
  std::string origin = files.size() == 1 ? files.front() : "(KUBECONFIG list)";
  if (name.empty()) throw ConfigError("kubeconfig " + origin + ": no current-context set and no context given");
  auto ctx = merged.contexts.find(name);
  if (ctx == merged.contexts.end()) throw ConfigError("kubeconfig " + origin + ": context '" + name + "' not found");
  const Entry& ce = ctx->second;
  YAML::Node c = ce.node["context"];
  if (!c || !c.IsMap()) Fail(ce.file, ce.where + ".context is missing");
  std::string cluster_name = scalar(c, "cluster", ce, "context.");
  std::string user_name = scalar(c, "user", ce, "context.");
  ClusterConfig cfg;
  auto cl = merged.clusters.find(cluster_name);
  if (cluster_name.empty() || cl == merged.clusters.end()) {
    Fail(ce.file, ce.where + ".context.cluster '" + cluster_name + "' not found");
  }
  ApplyCluster(cl->second, cfg);
  if (!user_name.empty()) {
    auto us = merged.users.find(user_name);
    if (us == merged.users.end()) Fail(ce.file, ce.where + ".context.user '" + user_name + "' not found");
    ApplyUser(us->second, cfg);
  }
  if (auto ns = scalar(c, "namespace", ce, "context."); !ns.empty()) cfg.namespace_ = ns;
  cfg.source = "kubeconfig " + ce.file + " context " + name;
  return cfg;
}

ClusterConfig LoadDefaultKubeconfig(const std::string& context, const EnvLookup& env) {
  std::vector<std::string> files;
  if (auto list = env("KUBECONFIG"); list && !list->empty()) {
    std::stringstream ss(*list);
    std::string item;
    while (std::getline(ss, item, ':')) {
      if (!item.empty() && fs::exists(item)) files.push_back(item);
    }
    if (files.empty()) throw ConfigError("KUBECONFIG='" + *list + "' names no existing file");
  } else if (auto home = env("HOME"); home) {
    files.push_back(*home + "/.kube/config");
  } else {
    throw ConfigError("kubeconfig: neither KUBECONFIG nor HOME is set");
  }
  return LoadKubeconfig(files, context);
}

TokenSource::TokenSource(std::string static_token, std::string token_file, std::chrono::seconds refresh)
    : static_token_(std::move(static_token)), token_file_(std::move(token_file)), refresh_(refresh) {}

std::string TokenSource::token(Clock::time_point now) {
  if (token_file_.empty()) return static_token_;
  std::lock_guard lock(mutex_);
  if (read_at_ && now - *read_at_ < refresh_) return cached_;
  auto text = ReadText(token_file_);
  if (!text) {
    // Keep using the last good token (the kubelet may be mid-rotation); fail only if we never had one.
    if (cached_.empty()) throw ConfigError("cannot read token file " + token_file_);
    return cached_;
  }
  cached_ = Trim(*text);
  read_at_ = now;
  return cached_;
}

void TokenSource::Invalidate() {
  std::lock_guard lock(mutex_);
  read_at_.reset();
}

}  // namespace gangplank::kube
