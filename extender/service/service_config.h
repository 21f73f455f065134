// Every setting of gangplank-extender, each settable by flag and by environment variable
// (GANGPLANK_EXTENDER_<FLAG_IN_UPPER_SNAKE_CASE>, e.g. --max-body-bytes / GANGPLANK_EXTENDER_MAX_BODY_BYTES).
// Flags win over the environment.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "extender/service/bind_rules.h"
#include "extender/service/extender_handlers.h"
#include "extender/service/routes.h"
#include "cache/crd/queue_config.h"

namespace CLI {
class App;
}

namespace gangplank::extender {

struct ServiceConfig {
  std::string listen_address = "0.0.0.0";
  std::uint16_t port = 8888;
  RouteConfig routes;
  HandlerOptions handlers;
  // Of filter, prioritize and preempt (other routes take 64 KiB). With nodeCacheCapable (the chart's
  // setting) kube-scheduler sends a Pod (at most ~1.5 MiB, etcd's object limit) plus node names, or for
  // preempt victims' UIDs (500 candidates x 110 pods x ~50 bytes = 2.7 MB): 16 MiB covers both with room.
  // Full NodeLists (nodeCacheCapable: false) are much larger: ~40 MB for 5,000 nodes with managedFields.
  std::size_t max_body_bytes = 16u << 20;
  // Open connections at most; more are refused (net::HttpServerOptions::max_connections). kube-scheduler
  // keeps a few (one per concurrent call; binds run in parallel).
  std::size_t max_connections = 128;
  int idle_timeout_seconds = 90;  // An idle keep-alive connection is closed after this.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string client_ca_file;  // Mutual TLS: clients must present a certificate this CA signed ...
  std::vector<std::string> client_names;  // ... naming one of these (empty: any).
  std::string plan_seal_key_file;  // The operator's plan seal key (cache/objects/plan_seal.h); empty: plans trusted.
  // A second listener with /healthz, /readyz and /metrics only, and no client certificate asked (kubelet
  // probes, Prometheus); port 0: none, they are served with the verbs.
  std::string health_listen_address = "0.0.0.0";
  std::uint16_t health_port = 0;
  // /readyz fails after this many list/watch failures in a row of a core informer; 0: never.
  long unready_after_watch_failures = 3;
  int tls_reload_seconds = 30;  // How often cert/key files are checked for change.
  std::vector<std::string> topology_keys;
  std::vector<cache::QueueConfig> queues;  // From --queue name:guaranteed[:limit]; GPUPool CRs add more.
  std::string default_queue;  // Queue of pods whose own label and namespace name none (the operator's too).
  std::string kubeconfig;           // Empty: in-cluster, else this kubeconfig file.
  BindRules bind_rules;             // Which bindings the bind verb carries out (scheduler_name).
  // How long a binding the bind verb assumed may wait for the pod informer before it is undone;
  // 0: never. kube-scheduler's durationToExpireAssumedPod is 15 minutes.
  int assumed_pod_ttl_seconds = 900;
  std::string log_level = "info";
};

// Registers every flag (with its environment variable) on `app`, writing into `config`.
void AddServiceFlags(CLI::App& app, ServiceConfig& config);

// "team-a:16:64" -> {team-a, 16, 64}; "team-b:8" -> no limit. Throws std::invalid_argument.
cache::QueueConfig ParseQueueFlag(const std::string& text);

}  // namespace gangplank::extender
