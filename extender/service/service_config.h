// Every setting of gangplank-extender, each settable by flag and by environment variable
// (GANGPLANK_EXTENDER_<FLAG_IN_UPPER_SNAKE_CASE>, e.g. --max-body-bytes / GANGPLANK_EXTENDER_MAX_BODY_BYTES).
// Flags win over the environment.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

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
  std::size_t max_body_bytes = 64u << 20;  // A 5,000-node NodeList with managedFields is ~40 MB.
  std::string tls_cert_file;
  std::string tls_key_file;
  int tls_reload_seconds = 30;  // How often cert/key files are checked for change.
  std::vector<std::string> topology_keys;
  std::vector<cache::QueueConfig> queues;  // From --queue name:guaranteed[:limit]; GPUPool CRs add more.
  std::string default_queue;  // Queue of pods whose own label and namespace name none (the operator's too).
  std::string kubeconfig;           // Empty: in-cluster, else this kubeconfig file.
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
