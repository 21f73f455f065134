#include "operator/service/operator_config.h"

#include <CLI/CLI.hpp>

#include "process/env_flags.h"

namespace gangplank::op {

void AddOperatorFlags(CLI::App& app, OperatorConfig& c) {
  process::EnvFlags flags(app, "GANGPLANK_OPERATOR_");
  flags.Option("kubeconfig", c.kubeconfig, "kubeconfig file; empty uses the in-cluster service account");
  flags.Option("kube-api-qps", c.kube_api_qps, "Requests per second to the API server (client-side limit), for reads and admission writes; events, conditions and statuses have a second budget of the same size (as kube-scheduler's events)")
      ->check(CLI::PositiveNumber);
  flags.Option("kube-api-burst", c.kube_api_burst, "Burst above --kube-api-qps")->check(CLI::PositiveNumber);
  flags.Option("listen-address", c.listen_address, "Address of the health, metrics and dry-run endpoints");
  flags.Option("port", c.port, "Port of /healthz, /readyz and /metrics (and POST /dry-run with --dry-run-auth=none)");
  flags.Option("webhook-port", c.webhook_port, "HTTPS port of the mutating admission webhook");
  flags.Option("dry-run-port", c.dry_run_port,
               "HTTPS port of POST /dry-run (the webhook's certificate; a listener of its own, so dry-run callers never "
               "take the webhook's connections); 0: no dry run over TLS");
  flags.Option("webhook-path", c.webhook_path, "Path the webhook configuration calls");
  flags.Option("webhook-tls-cert-file", c.webhook_cert_file,
               "PEM certificate of the webhook (with --webhook-tls-key-file); without both no webhook is served");
  flags.Option("webhook-tls-key-file", c.webhook_key_file, "PEM private key of the webhook");
  flags.Option("dry-run-auth", c.dry_run_auth,
               "Who may ask POST /dry-run: tokenreview (on --dry-run-port, a bearer token the API server accepts, for "
               "namespaces where its user may create pods) or none (on the plain port, anyone: a development cluster)")
      ->check(CLI::IsMember({"tokenreview", "none"}));
  flags.Option("dry-run-audience", c.dry_run_audiences,
               "Audience a dry-run bearer token must be issued for (repeat, or comma-separated): kubectl create token "
               "SA --audience gangplank. A token for the API server or another service is refused, so no service "
               "that receives tokens can replay them here. '*': any audience the API server accepts (its own too, "
               "as OIDC tokens have)")
      ->delimiter(',');
  flags.Option("plan-seal-key-file", c.plan_seal_key_file,
               "File holding the key (32+ bytes) that seals admission plans (HMAC of pod UID, node and admission id); "
               "plans without a valid seal are ignored. Give the extender the same file; empty: plans are trusted as "
               "written (the chart's ValidatingAdmissionPolicy is then the only guard)");
  flags.Option("tls-reload-seconds", c.tls_reload_seconds,
               "Check the webhook certificate and key for change this often")
      ->check(CLI::PositiveNumber);
  flags.Option("scheduler-name", c.scheduler_names,
               "schedulerName of the pods gangplank admits (repeat); the webhook gates them, the operator admits them")
      ->delimiter(',');
  flags.Option("default-queue", c.default_queue,
               "Queue of gangs whose pods and namespace name none (empty: such gangs wait with reason NoQueue)");
  flags.Option("policy", c.policy, "Engine scoring policy that picks nodes inside the chosen topology domain");
  flags.Option("workers", c.workers, "Pools reconciled in parallel")->check(CLI::Range(1, 16));
  flags.Option("admission-writers", c.admission_writers,
               "Gangs admitted in one round whose writes (plan, then gate removal) are in flight at once; each waits "
               "on the API server, and all share --kube-api-qps")
      ->check(CLI::Range(1, 64));
  flags.Option("resync-seconds", c.resync_seconds,
               "Every pool is reconciled (and its status refreshed) at least this often")
      ->check(CLI::PositiveNumber);
  flags.Option("max-staleness-seconds", c.max_staleness_seconds,
               "A full admission round at least this often; between them, events replan only the gangs they touch")
      ->check(CLI::PositiveNumber);
  flags.Option("spot-eviction-margin-seconds", c.spot_eviction_margin_seconds,
               "A gang on a node under a termination notice is evicted at least this long before the node goes (the "
               "checkpoint deadline ends here at the latest; the GPUPool's spot.checkpointGraceSeconds caps it too)")
      ->check(CLI::NonNegativeNumber);
  flags.Option("status-interval-seconds", c.status_interval_seconds,
               "A GPUPool's status, and the Queues' statuses, are written at most this often (a GPUPool's Ready "
               "condition changing is written at once)")
      ->check(CLI::NonNegativeNumber);
  flags.Option("condition-rewrite-seconds", c.condition_rewrite_seconds,
               "A gang's condition is rewritten at most this often when only its numbers change")
      ->check(CLI::NonNegativeNumber);
  flags.Option("waiting-condition-delay-seconds", c.waiting_condition_delay_seconds,
               "A gang's first word that it waits (its condition and Event) is written only once it has waited this "
               "long; a lone pod admitted within it gets no gangplank condition or Event at all (kube-scheduler's "
               "PodScheduled and Scheduled say it), saving two API writes per pod")
      ->check(CLI::NonNegativeNumber);
  flags.Switch("native-gang-cycle", c.native_gang_cycle,
               "gangplank's kube-scheduler runs Kubernetes' PodGroup cycle (its GenericWorkload gate is on): it holds "
               "a PodGroup's pods while any is gated, so a basic PodGroup's waiting pods are admitted together instead "
               "of one by one (the chart's scheduler.nativeGangCycle sets both)",
               "no-native-gang-cycle");
  flags.Option("prometheus-url", c.prometheus_url,
               "Prometheus holding dcgm-exporter's GPU metrics, for pools whose spec.utilization names none (empty: "
               "their utilization is not read and idle policies never act)");
  flags.Option("utilization-query", c.utilization_query,
               "PromQL giving each pod's mean GPU utilization in percent with namespace and pod labels, for pools "
               "whose spec.utilization names none");
  flags.Option("utilization-interval-seconds", c.utilization_interval_seconds,
               "GPU utilization is read, idle gangs judged and GPU-seconds counted this often")
      ->check(CLI::Range(1, 3600));
  flags.Option("prometheus-bearer-token-file", c.prometheus_bearer_token_file,
               "File holding a bearer token for Prometheus (read again at every query)");
  flags.Option("prometheus-ca-file", c.prometheus_ca_file, "PEM CA bundle that signs an https Prometheus");
  flags.Switch("leader-elect", c.leader_elect,
               "Elect a leader on a Lease; only the leader writes (run several replicas for availability)",
               "no-leader-elect");
  flags.Option("placeholder-namespace", c.placeholder_namespace,
               "Namespace of the placeholder pods that ask an autoscaler for a gang's nodes (GPUPool "
               "spec.autoscaling); tenants must not be able to write pods there (empty: the pod's namespace, "
               "else gangplank-system)");
  flags.Option("placeholder-scheduler", c.placeholder_scheduler,
               "Scheduler of the placeholder pods: one the autoscaler watches for Unschedulable pods");
  flags.Option("placeholder-image", c.placeholder_image, "Image the placeholder pods name");
  flags.Option("leader-election-namespace", c.leader_election_namespace,
               "Namespace of the Lease (empty: the pod's namespace, else gangplank-system)");
  flags.Option("leader-election-name", c.leader_election_name, "Name of the Lease");
  flags.Option("leader-election-identity", c.leader_election_identity,
               "This replica's identity (empty: the host name)");
  flags.Option("lease-duration-seconds", c.lease_duration_seconds, "How long a lease is valid without renewal")
      ->check(CLI::PositiveNumber);
  flags.Option("renew-deadline-seconds", c.renew_deadline_seconds,
               "The leader stops leading when it cannot renew this long")
      ->check(CLI::PositiveNumber);
  flags.Option("retry-period-seconds", c.retry_period_seconds, "How often the lease is tried and renewed")
      ->check(CLI::PositiveNumber);
  flags.Option("log-level", c.log_level, "trace, debug, info, warn, error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
}

}  // namespace gangplank::op
