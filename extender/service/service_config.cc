#include "extender/service/service_config.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace gangplank::extender {
namespace {

std::string EnvName(std::string flag) {
  std::string env = "GANGPLANK_EXTENDER_";
  for (char c : flag) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

template <typename T>
CLI::Option* Flag(CLI::App& app, const std::string& name, T& target, const std::string& help) {
  return app.add_option("--" + name, target, help)->envname(EnvName(name))->capture_default_str();
}

int ParseInt(const std::string& text, const std::string& what) {
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0) throw std::invalid_argument(what + " must be a whole number >= 0, got '" + text + "'");
  return value;
}

}  // namespace

cache::QueueConfig ParseQueueFlag(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty()) {
    throw std::invalid_argument("queue '" + text + "' is not name:guaranteed[:limit]");
  }
  const std::string& name = parts[0];
  const int guaranteed = ParseInt(parts[1], "queue " + name + " guaranteed GPUs");
  std::optional<int> limit;
  if (parts.size() == 3 && !parts[2].empty()) limit = ParseInt(parts[2], "queue " + name + " limit");
  if (limit && *limit < guaranteed) throw std::invalid_argument("queue " + name + ": limit below its guarantee");
  return cache::UniformQueue(name, guaranteed, limit);
}

void AddServiceFlags(CLI::App& app, ServiceConfig& c) {
  Flag(app, "listen-address", c.listen_address, "Address to listen on");
  Flag(app, "port", c.port, "Port to listen on");
  Flag(app, "path-prefix", c.routes.prefix, "Path part of kube-scheduler's urlPrefix, e.g. /gangplank");
  Flag(app, "filter-verb", c.routes.filter_verb, "filterVerb (empty disables)");
  Flag(app, "prioritize-verb", c.routes.prioritize_verb, "prioritizeVerb (empty disables)");
  Flag(app, "preempt-verb", c.routes.preempt_verb, "preemptVerb (empty disables)");
  Flag(app, "bind-verb", c.routes.bind_verb,
       "bindVerb: bind pods through the extender so the cache holds them at once (empty: kube-scheduler binds)");
  Flag(app, "managed-resource", c.handlers.managed_resources,
       "kube-scheduler managedResources name (repeat); pods using none pass through untouched")
      ->delimiter(',');
  Flag(app, "policy", c.handlers.policy, "Engine scoring policy for prioritize (engine/policies registry name)");
  Flag(app, "workload-sample", c.handlers.workload_sample, "Pods the scoring policy's workload model is built from");
  Flag(app, "max-body-bytes", c.max_body_bytes, "Largest request body; larger ones get 413");
  Flag(app, "tls-cert-file", c.tls_cert_file, "PEM certificate; serve HTTPS when set with --tls-key-file");
  Flag(app, "tls-key-file", c.tls_key_file, "PEM private key");
  Flag(app, "tls-reload-seconds", c.tls_reload_seconds, "Check the certificate and key for change this often");
  Flag(app, "topology-keys", c.topology_keys, "Node label keys of the topology levels, widest first")->delimiter(',');
  app.add_option_function<std::vector<std::string>>(
         "--queue",
         [&c](const std::vector<std::string>& values) {
           for (const auto& v : values) {
             try {
               c.queues.push_back(ParseQueueFlag(v));
             } catch (const std::invalid_argument& e) {
               throw CLI::ValidationError("--queue", e.what());  // Reported by CLI11 like any bad flag.
             }
           }
         },
         "Queue name:guaranteedGPUs[:limitGPUs] (repeat); GPUPool resources add more")
      ->envname(EnvName("queue"))
      ->delimiter(',');
  Flag(app, "kubeconfig", c.kubeconfig, "kubeconfig file; empty uses the in-cluster service account");
  Flag(app, "assumed-pod-ttl-seconds", c.assumed_pod_ttl_seconds,
       "Undo a binding the bind verb assumed if the pod informer has not confirmed it after this long (0: never)")
      ->check(CLI::NonNegativeNumber);
  Flag(app, "log-level", c.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

}  // namespace gangplank::extender
