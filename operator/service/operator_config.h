// Every setting of gangplank-operator, each settable by flag and by environment variable
// (GANGPLANK_OPERATOR_<FLAG_IN_UPPER_SNAKE_CASE>, e.g. --webhook-port / GANGPLANK_OPERATOR_WEBHOOK_PORT).
// Flags win over the environment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gangplank::op {

struct OperatorConfig {
  std::string kubeconfig;  // Empty: in-cluster service account.
  double kube_api_qps = 50;
  int kube_api_burst = 100;

  std::string listen_address = "0.0.0.0";
  std::uint16_t port = 8080;  // /healthz, /readyz, /metrics (and /dry-run with dry_run_auth "none")

  std::uint16_t webhook_port = 9443;
  // The dry run's own HTTPS listener (same certificate as the webhook), so its callers never take the
  // webhook's connections; 0: no dry run over TLS.
  std::uint16_t dry_run_port = 9444;
  std::string webhook_path = "/mutate-pods";
  std::string webhook_cert_file;  // Empty (with the key): no webhook is served.
  std::string webhook_key_file;
  int tls_reload_seconds = 30;
  // Who may ask POST /dry-run: "tokenreview" (on the dry-run port, a bearer token the API server accepts, for
  // namespaces where its user may create pods) or "none" (on the plain port, anyone).
  std::string dry_run_auth = "tokenreview";
  // The audiences a dry-run token must be issued for (TokenReview spec.audiences); {"*"}: any the API
  // server accepts, its own included.
  std::vector<std::string> dry_run_audiences{"gangplank"};
  // Key of the plans' seals (cache/objects/plan_seal.h), shared with the extender; empty: no seals.
  std::string plan_seal_key_file;

  std::vector<std::string> scheduler_names{"gangplank"};
  std::string default_queue;
  std::string policy = "fragpack";
  int workers = 1;
  int admission_writers = 8;
  int resync_seconds = 30;
  int max_staleness_seconds = 60;
  int spot_eviction_margin_seconds = 15;
  int status_interval_seconds = 5;
  int condition_rewrite_seconds = 30;
  int waiting_condition_delay_seconds = 5;
  bool native_gang_cycle = false;

  // Autoscaled pools' placeholder pods (operator/autoscaling): where they are made, which scheduler runs
  // them, and the image they name (never pulled while they wait; a node they land on deletes them).
  std::string placeholder_namespace;  // Empty: the pod's own namespace, else "gangplank-system".
  std::string placeholder_scheduler = "default-scheduler";
  std::string placeholder_image = "registry.k8s.io/pause:3.10";

  // GPU utilization (utilization/): Prometheus for pools that name none, the query, how often it is read.
  std::string prometheus_url;
  std::string utilization_query = "avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL)";
  int utilization_interval_seconds = 30;
  std::string prometheus_bearer_token_file;
  std::string prometheus_ca_file;
  bool leader_elect = true;
  std::string leader_election_namespace;  // Empty: the pod's own namespace, else "gangplank-system".
  std::string leader_election_name = "gangplank-operator";
  std::string leader_election_identity;   // Empty: the host name.
  int lease_duration_seconds = 15;
  int renew_deadline_seconds = 10;
  int retry_period_seconds = 2;

  std::string log_level = "info";
};

// Registers every flag (with its environment variable) on `app`, writing into `config`.
void AddOperatorFlags(CLI::App& app, OperatorConfig& config);

}  // namespace gangplank::op
