// gangplank-operator: admits gangs whole, reclaims and preempts whole gangs, reports pools and queues.
// See operator/README.md.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>

#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/plan_seal_key.h"
#include "cache/feed/shared_informers.h"
#include "kube/config.h"
#include "kube/leader_election.h"
#include "logging/json_log.h"
#include "operator/writer/kube_cluster_writer.h"
#include "operator/writer/leader_gated_writer.h"
#include "operator/gangs/kube_object_reader.h"
#include "operator/service/controller.h"
#include "operator/utilization/prometheus_utilization.h"
#include "operator/service/dry_run_command.h"
#include "operator/service/dry_run_head_check.h"
#include "operator/service/usage_command.h"
#include "operator/service/operator_config.h"
#include "operator/service/operator_routes.h"
#include "process/signals.h"
#include "process/tls_reload.h"

namespace {

using namespace gangplank;
using namespace gangplank::op;

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "gangplank-operator";
  return name;
}

// The namespace this pod runs in (gangplank-system outside a cluster).
std::string OwnNamespace() {
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  if (in && std::getline(in, ns) && !ns.empty()) return ns;
  return "gangplank-system";
}

std::string LeaseNamespace(const OperatorConfig& c) {
  return c.leader_election_namespace.empty() ? OwnNamespace() : c.leader_election_namespace;
}

ControllerOptions ControllerOptionsOf(const OperatorConfig& c) {
  ControllerOptions o;
  o.scheduler_names = c.scheduler_names;
  o.default_queue = c.default_queue;
  o.workers = c.workers;
  o.resync = std::chrono::seconds(c.resync_seconds);
  o.condition_rewrite_seconds = c.condition_rewrite_seconds;
  o.waiting_condition_delay_seconds = c.waiting_condition_delay_seconds;
  o.reconciler.policy = c.policy;
  o.reconciler.max_staleness_seconds = c.max_staleness_seconds;
  o.reconciler.admission_writers = c.admission_writers;
  o.reconciler.spot_eviction_margin_seconds = c.spot_eviction_margin_seconds;
  o.reconciler.native_gang_cycle = c.native_gang_cycle;
  o.reconciler.status_interval_seconds = c.status_interval_seconds;
  o.queue_status_delay = std::chrono::seconds(c.status_interval_seconds);
  o.reconciler.idle_max_gap_seconds = 3.0 * c.utilization_interval_seconds;
  o.utilization.prometheus_url = c.prometheus_url;
  o.utilization.query = c.utilization_query;
  o.utilization.interval_seconds = c.utilization_interval_seconds;
  o.placeholders.namespace_ = c.placeholder_namespace.empty() ? OwnNamespace() : c.placeholder_namespace;
  o.placeholders.scheduler = c.placeholder_scheduler;
  o.placeholders.image = c.placeholder_image;
  return o;
}

// Per listener: open connections at most, and the deepest JSON a request body may nest (a pod's
// managedFields, the deepest part of an AdmissionReview, nest about a dozen levels).
// The dry run's listener has fewer: each of its requests may run a TokenReview and a planning pass.
constexpr std::size_t kMaxConnections = 256;
constexpr std::size_t kMaxDryRunConnections = 64;
constexpr std::size_t kMaxJsonDepth = 64;

std::unique_ptr<net::HttpServer> StartServer(const std::string& host, std::uint16_t port, std::optional<net::HttpTlsFiles> tls,
                                             net::HttpHandler handler, net::HttpBodyLimit body_limit = {},
                                             net::HttpHeadCheck head_check = {},
                                             std::size_t max_connections = kMaxConnections) {
  net::HttpServerOptions o;
  o.host = host;
  o.port = port;
  o.tls = std::move(tls);
  o.body_limit = std::move(body_limit);
  o.head_check = std::move(head_check);
  // No pod can stall these listeners (the webhook's failurePolicy Fail would then refuse every gangplank
  // pod): a cap on connections where the one that waited longest for a request gives way to a newcomer
  // (the API server's next webhook call, a kubelet's probe), and no JSON nested deeper than any
  // AdmissionReview or dry-run request needs reaches a parser.
  o.max_connections = max_connections;
  o.shed_waiting_at_limit = true;
  o.max_json_depth = kMaxJsonDepth;
  auto server = net::MakeHttpServer(o);
  server->Start(std::move(handler));
  return server;
}

// The elector's own client: one lease call never outlasts half the renew deadline (no retries; the
// elector's loop is the retry), so losing the API server ends this replica's lead on time.
std::shared_ptr<kube::Client> LeaseClient(const kube::ClusterConfig& cluster, const OperatorConfig& config) {
  kube::RestOptions o;
  o.user_agent = "gangplank-operator/0.1 leader-election";
  o.qps = 5;
  o.burst = 5;
  o.max_retries = 0;
  o.max_transport_retries = 0;
  o.request_timeout = std::max(std::chrono::milliseconds(500), std::chrono::milliseconds(config.renew_deadline_seconds * 1000 / 2));
  return std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(cluster, o));
}

int Run(const OperatorConfig& config) {
  const process::StopSignals stop;  // Before any thread starts, so none of them is interrupted by one.

  kube::ClusterConfig kube_config =
      config.kubeconfig.empty() ? kube::LoadInClusterConfig() : kube::LoadKubeconfig({config.kubeconfig});
  kube::RestOptions rest_options;
  rest_options.qps = config.kube_api_qps;
  rest_options.burst = config.kube_api_burst;
  rest_options.user_agent = "gangplank-operator/0.1";
  auto lease_client = LeaseClient(kube_config, config);
  // Events, conditions and statuses: a second client with a budget of its own, as kube-scheduler's event
  // client, so admission writes never queue behind reports.
  kube::RestOptions reporting_options = rest_options;
  reporting_options.user_agent = "gangplank-operator/0.1 reporting";
  auto reporting = std::make_shared<kube::Client>(std::make_shared<kube::RestClient>(kube_config, reporting_options));
  auto rest = std::make_shared<kube::RestClient>(std::move(kube_config), rest_options);
  auto client = std::make_shared<kube::Client>(rest);

  const std::shared_ptr<const cache::PlanSeal> seal = cache::ReadPlanSealKey(config.plan_seal_key_file);
  if (!seal) spdlog::warn(logging::JsonFields("no --plan-seal-key-file: admission plans on pods are trusted as written"));
  OperatorMetrics metrics;
  cache::SharedInformers informers(rest);
  cache::ClusterStateFeed feed(informers, {}, seal);
  KubeClusterWriter kube_writer(client, "gangplank-operator", seal, reporting, &feed.gpus());
  // Every write asks the elector, not the controller's flag (which a hanging renew keeps set).
  std::atomic<kube::LeaderElector*> leading_elector{nullptr};
  LeaderGatedWriter writer(kube_writer, [&] {
    const kube::LeaderElector* e = leading_elector.load();
    return !config.leader_elect || (e != nullptr && e->IsLeader());
  });
  KubeObjectReader reader(client);
  ControllerOptions controller_options = ControllerOptionsOf(config);
  controller_options.plan_seal = seal;
  PrometheusUtilization utilization({config.prometheus_bearer_token_file, config.prometheus_ca_file});
  controller_options.utilization_source = &utilization;
  Controller controller(informers, feed, writer, reader, metrics, std::move(controller_options));
  informers.Start();
  feed.Start();
  controller.Start();

  std::unique_ptr<kube::LeaderElector> elector;
  if (config.leader_elect) {
    kube::LeaderElectionConfig le;
    le.namespace_ = LeaseNamespace(config);
    le.name = config.leader_election_name;
    le.identity = config.leader_election_identity.empty() ? Hostname() + "_" + std::to_string(::getpid())
                                                          : config.leader_election_identity;
    le.lease_duration = std::chrono::seconds(config.lease_duration_seconds);
    le.renew_deadline = std::chrono::seconds(config.renew_deadline_seconds);
    le.retry_period = std::chrono::seconds(config.retry_period_seconds);
    le.release_on_stop = true;
    le.on_started_leading = [&controller] { controller.SetLeader(true); };
    le.on_stopped_leading = [&controller] { controller.SetLeader(false); };
    le.on_new_leader = [](const std::string& who) { spdlog::info(logging::JsonFields("leader observed", "identity", who)); };
    spdlog::info(logging::JsonFields("campaigning for the lease", "namespace", le.namespace_, "name", le.name, "identity", le.identity));
    elector = std::make_unique<kube::LeaderElector>(lease_client, std::move(le));
    leading_elector.store(elector.get());
    elector->Start();
  } else {
    controller.SetLeader(true);
  }

  const bool tls = !config.webhook_cert_file.empty() && !config.webhook_key_file.empty();
  const bool open_dry_run = config.dry_run_auth == "none";
  const bool tls_dry_run_port = tls && config.dry_run_port != 0 && !open_dry_run;
  DryRunRoute plain_dry_run;
  DryRunRoute tls_dry_run;
  std::string webhook_dry_run_hint;
  if (open_dry_run) {
    spdlog::warn(logging::JsonFields("the dry run is open to anyone on the plain port (--dry-run-auth=none)"));
    plain_dry_run.controller = &controller;
    webhook_dry_run_hint = "the dry run is served on the plain port (--dry-run-auth=none)";
  } else {
    plain_dry_run.hint = tls_dry_run_port
                             ? "the dry run is served on the TLS port :" + std::to_string(config.dry_run_port) +
                                   " to a bearer token (--dry-run-auth=tokenreview)"
                             : "no dry run: it needs the TLS files (--webhook-tls-cert-file, --webhook-tls-key-file) and "
                               "--dry-run-port";
    webhook_dry_run_hint = plain_dry_run.hint;
    tls_dry_run.controller = &controller;
    tls_dry_run.access = KubeDryRunAccess(*client, config.dry_run_audiences);
  }
  const net::HttpTlsFiles tls_files{config.webhook_cert_file, config.webhook_key_file};
  // Outlives the dry-run server (declared before it): the caller is authenticated before its body is read.
  std::unique_ptr<DryRunHeadCheck> dry_run_head_check;
  if (tls_dry_run_port) dry_run_head_check = std::make_unique<DryRunHeadCheck>(*tls_dry_run.access);
  auto server = StartServer(config.listen_address, config.port, std::nullopt,
                            MakeOperatorRouter(controller, metrics, std::move(plain_dry_run)), OperatorBodyLimit());
  std::unique_ptr<net::HttpServer> webhook;
  std::unique_ptr<net::HttpServer> dry_run;
  if (tls) {
    WebhookOptions options;
    options.scheduler_names = config.scheduler_names;
    options.queue_refusal = [&controller](const std::string& ns, const std::optional<std::string>& label, std::int32_t priority) {
      return controller.QueueRefusal(ns, label, priority);
    };
    webhook = StartServer(config.listen_address, config.webhook_port, tls_files,
                          MakeWebhookRouter(config.webhook_path, options, metrics, webhook_dry_run_hint),
                          OperatorBodyLimit(kSmallBodyBytes, config.webhook_path));
  }
  if (tls_dry_run_port) {
    dry_run = StartServer(config.listen_address, config.dry_run_port, tls_files, MakeDryRunRouter(std::move(tls_dry_run)),
                          OperatorBodyLimit(kDryRunBodyBytes),
                          dry_run_head_check ? dry_run_head_check->Check() : net::HttpHeadCheck{}, kMaxDryRunConnections);
  }
  spdlog::info(logging::JsonFields("serving", "url", server->BaseUrl(), "webhook",
                                   webhook ? webhook->BaseUrl() + config.webhook_path : std::string("off"), "dry_run",
                                   dry_run ? dry_run->BaseUrl() + "/dry-run" : std::string("off")));

  std::optional<process::TlsReload> reload;
  std::optional<process::TlsReload> dry_run_reload;
  if (webhook) reload.emplace(*webhook, tls_files, "webhook");
  if (dry_run) dry_run_reload.emplace(*dry_run, tls_files, "dry run");
  stop.Wait(std::chrono::seconds(config.tls_reload_seconds), [&] {
    if (reload) reload->Check();
    if (dry_run_reload) dry_run_reload->Check();
  });
  if (dry_run) dry_run->Stop();
  if (webhook) webhook->Stop();
  controller.Stop();        // Finishes the round in flight; nothing is written after this.
  leading_elector.store(nullptr);  // Nor by anything left: the gate no longer reads the elector.
  if (elector) elector->Stop();  // Releases the lease so a standby takes over at once.
  server->Stop();
  informers.Stop();
  feed.Stop();
  spdlog::info(logging::JsonFields("stopped"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gangplank-operator: admits gangs of pods whole (removing the scheduling gate gangplank.io/admission once the\n"
      "engine plans the whole gang in the narrowest topology domain), reclaims GPUs for queues below their fair\n"
      "share and preempts by priority (whole gangs, PodDisruptionBudgets respected), serves the mutating webhook\n"
      "that adds the gate, and writes GPUPool and Queue status. Every flag is also an environment variable\n"
      "GANGPLANK_OPERATOR_<FLAG>."};
  app.set_version_flag("--version", std::string("gangplank-operator ") + GANGPLANK_VERSION);
  OperatorConfig config;
  AddOperatorFlags(app, config);
  DryRunCommandOptions dry_run_options;
  CLI::App* dry_run = AddDryRunCommand(app, dry_run_options);
  UsageCommandOptions usage_options;
  CLI::App* usage = AddUsageCommand(app, usage_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (dry_run->parsed()) return RunDryRunCommand(dry_run_options);
    if (usage->parsed()) return RunUsageCommand(usage_options);
    logging::SetUpJsonLogging("gangplank-operator", config.log_level);
    return Run(config);
  } catch (const std::exception& e) {
    spdlog::critical(logging::JsonFields("fatal", "error", e.what()));
    return 1;
  }
}
