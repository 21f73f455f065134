#include "extender/service/service_config.h"

#include <CLI/CLI.hpp>

#include <stdexcept>

#include "process/env_flags.h"

namespace gangplank::extender {
namespace {

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
  process::EnvFlags flags(app, "GANGPLANK_EXTENDER_");
  flags.Option("listen-address", c.listen_address, "Address to listen on");
  flags.Option("port", c.port, "Port to listen on");
  flags.Option("path-prefix", c.routes.prefix, "Path part of kube-scheduler's urlPrefix, e.g. /gangplank");
  flags.Option("filter-verb", c.routes.filter_verb, "filterVerb (empty disables)");
  flags.Option("prioritize-verb", c.routes.prioritize_verb, "prioritizeVerb (empty disables)");
  flags.Option("preempt-verb", c.routes.preempt_verb, "preemptVerb (empty disables)");
  flags.Option("bind-verb", c.routes.bind_verb,
               "bindVerb: bind pods through the extender so the cache holds them at once "
               "(empty: kube-scheduler binds)");
  flags.Option("managed-resource", c.handlers.managed_resources,
               "kube-scheduler managedResources name (repeat); pods using none pass through untouched")
      ->delimiter(',');
  flags.Option("policy", c.handlers.policy, "Engine scoring policy for prioritize (engine/policies registry name)");
  flags.Option("workload-sample", c.handlers.workload_sample, "Pods the scoring policy's workload model is built from");
  flags.Option("max-body-bytes", c.max_body_bytes,
               "Largest filter/prioritize/preempt request body (other routes: 64 KiB); larger ones get 413. The "
               "default fits nodeCacheCapable: true; raise it to ~64 MiB for full NodeLists");
  flags.Option("max-connections", c.max_connections, "Open connections at most; more are closed at once (0: no limit)");
  flags.Option("idle-timeout-seconds", c.idle_timeout_seconds, "Close a keep-alive connection idle this long")
      ->check(CLI::PositiveNumber);
  flags.Option("tls-cert-file", c.tls_cert_file, "PEM certificate; serve HTTPS when set with --tls-key-file");
  flags.Option("tls-key-file", c.tls_key_file, "PEM private key");
  flags.Option("client-ca-file", c.client_ca_file,
               "PEM CA bundle: require clients (kube-scheduler) to present a certificate it signed; others are "
               "refused at the TLS handshake. Needs --tls-cert-file; re-read like the certificate");
  flags.Option("client-cert-name", c.client_names,
               "With --client-ca-file: a name the client certificate must carry (its DNS subjectAltName, or its "
               "common name when it has none); repeat or comma-separate. A certificate the CA signed for another "
               "service (the operator's webhook) is then refused too. Empty: any certificate the CA signed")
      ->delimiter(',');
  flags.Option("plan-seal-key-file", c.plan_seal_key_file,
               "File holding the key of the operator's plan seals (the operator's --plan-seal-key-file): a pod's "
               "admission plan counts only with a valid seal; empty: plans are trusted as written");
  flags.Option("health-listen-address", c.health_listen_address, "Address of the --health-port listener");
  flags.Option("health-port", c.health_port,
               "Serve /healthz, /readyz and /metrics (no verbs, no client certificate) on this port too; 0: off");
  flags.Option("unready-after-watch-failures", c.unready_after_watch_failures,
               "/readyz fails once the node, pod or namespace informer has failed this many list/watch calls in "
               "a row (0: never)")
      ->check(CLI::NonNegativeNumber);
  flags.Option("scheduler-name", c.bind_rules.scheduler_name,
               "schedulerName of the pods gangplank schedules; the bind verb refuses pods naming another "
               "(empty: any)");
  flags.Option("tls-reload-seconds", c.tls_reload_seconds, "Check the certificate and key for change this often");
  flags.Option("topology-keys", c.topology_keys, "Node label keys of the topology levels, widest first")
      ->delimiter(',');
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
      ->envname(flags.EnvName("queue"))
      ->delimiter(',');
  flags.Option("default-queue", c.default_queue,
               "Queue of pods whose own gangplank.io/queue label and namespace name none (empty: they are in no "
               "queue); set it to the operator's --default-queue so both charge them alike");
  flags.Option("kubeconfig", c.kubeconfig, "kubeconfig file; empty uses the in-cluster service account");
  flags.Option("assumed-pod-ttl-seconds", c.assumed_pod_ttl_seconds,
               "Undo a binding the bind verb assumed if the pod informer has not confirmed it after this long "
               "(0: never)")
      ->check(CLI::NonNegativeNumber);
  flags.Option("log-level", c.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

}  // namespace gangplank::extender
