// gangplank-extender: kube-scheduler's HTTP extender for gangplank. See extender/README.md.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

#include "cache/state/assume_expiry.h"
#include "extender/service/bind_verb.h"
#include "extender/service/expired_assumptions.h"
#include "logging/json_log.h"
#if GANGPLANK_EXTENDER_WITH_KUBE
#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/plan_seal_key.h"
#include "cache/feed/shared_informers.h"
#include "extender/service/informer_pod_lookup.h"
#include "extender/service/kube_binder.h"
#include "extender/service/watch_health.h"
#include "kube/config.h"
#endif
#include "extender/service/routes.h"
#include "extender/service/service_config.h"
#include "process/signals.h"
#include "process/tls_reload.h"

namespace {

using namespace gangplank;
using namespace gangplank::extender;

net::HttpServerOptions ServerOptions(const ServiceConfig& c) {
  net::HttpServerOptions o;
  o.host = c.listen_address;
  o.port = c.port;
  o.max_request_body_bytes = c.max_body_bytes;
  o.body_limit = MakeBodyLimit(c.routes, c.max_body_bytes);
  o.max_connections = c.max_connections;
  o.shed_waiting_at_limit = true;  // idle connections give way to kube-scheduler's next call
  o.idle_timeout = std::chrono::seconds(c.idle_timeout_seconds);
  if (!c.client_ca_file.empty() && c.tls_cert_file.empty()) {
    throw std::runtime_error("--client-ca-file needs --tls-cert-file and --tls-key-file");
  }
  if (!c.client_names.empty() && c.client_ca_file.empty()) throw std::runtime_error("--client-cert-name needs --client-ca-file");
  if (!c.tls_cert_file.empty() || !c.tls_key_file.empty()) {
    o.tls = net::HttpTlsFiles{c.tls_cert_file, c.tls_key_file, c.client_ca_file, c.client_names};
  }
  return o;
}

// The --health-port listener: the serving certificate without a client CA (kubelet and Prometheus have
// no client certificate), small bodies only, few connections.
net::HttpServerOptions HealthServerOptions(const ServiceConfig& c) {
  net::HttpServerOptions o;
  o.host = c.health_listen_address;
  o.port = c.health_port;
  o.max_request_body_bytes = kSmallBodyBytes;
  o.max_connections = 32;
  // A pod that opens the 32 connections and sends nothing cannot fail the kubelet's liveness probe: the
  // connection that waited longest gives way to each newcomer.
  o.shed_waiting_at_limit = true;
  o.io_threads = 1;
  if (!c.tls_cert_file.empty()) o.tls = net::HttpTlsFiles{c.tls_cert_file, c.tls_key_file, ""};
  return o;
}

int Run(const ServiceConfig& config) {
  const process::StopSignals stop;  // Before any thread starts, so none of them is interrupted by one.

  cache::ClusterState state(config.topology_keys);
  state.SetQueues(config.queues);
  // A pod of another scheduler pays its namespace's queue, as the operator charges it.
  std::vector<std::string> governing;
  if (!config.bind_rules.scheduler_name.empty()) governing.push_back(config.bind_rules.scheduler_name);
  state.SetQueueRules(cache::QueueResolver(config.default_queue, std::move(governing)));
  state.SetAssumedPodTtl(std::chrono::seconds(config.assumed_pod_ttl_seconds));
  ExtenderMetrics metrics;
  UnseenPods unseen;
  HandlerOptions handler_options = config.handlers;
#if GANGPLANK_EXTENDER_WITH_KUBE
  kube::ClusterConfig kube_config =
      config.kubeconfig.empty() ? kube::LoadInClusterConfig() : kube::LoadKubeconfig({config.kubeconfig});
  cache::SharedInformers informers(std::make_shared<kube::RestClient>(std::move(kube_config)));
  cache::ClusterStateFeed feed(informers, config.queues, config.handlers.plan_seal);
  handler_options.gpus = &feed.gpus();  // The pod of a request body counts its claims as the cache does.
#endif
  ExtenderHandlers handlers(state, metrics, std::move(handler_options), &unseen);
  // Checked every second, as kube-scheduler does; stopped before the state and metrics go away.
  const cache::AssumeExpiry expiry(state, std::chrono::seconds(1),
                                   [&metrics](const auto& expired) { ReportExpiredAssumptions(expired, metrics); });

  // Both outlive the server (declared before it). The binder goes first: its destructor answers the
  // bindings still queued, through the BindVerb.
  std::unique_ptr<BindVerb> bind;
  std::unique_ptr<PodBinder> binder;
  std::unique_ptr<PodLookup> pods;
  NotReadyReason not_ready;
#if GANGPLANK_EXTENDER_WITH_KUBE
  feed.Attach(&state);
  informers.Start();
  feed.Start();
  const WatchHealth watch_health(informers, config.unready_after_watch_failures);
  not_ready = [&watch_health] { return watch_health.Problem(); };
  if (!config.routes.bind_verb.empty()) {
    BindRules rules = config.bind_rules;
    rules.managed_resources = config.handlers.managed_resources;
    pods = std::make_unique<InformerPodLookup>(informers.pods());
    binder = std::make_unique<KubeBinder>(informers.client());
    bind = std::make_unique<BindVerb>(state, *binder, metrics, *pods, std::move(rules), &unseen);
  }
#else
  spdlog::warn(logging::JsonFields("built without the kube component: the cache stays empty and /readyz never passes"));
  if (!config.routes.bind_verb.empty()) throw std::runtime_error("--bind-verb needs a build with the kube component");
#endif
  const net::HttpHandler router = MakeRouter(handlers, state, metrics, config.routes, bind.get(), not_ready);

  auto server = net::MakeHttpServer(ServerOptions(config));
  server->Start(router);
  spdlog::info(logging::JsonFields("serving", "url", server->BaseUrl(), "filter", config.routes.filter_verb,
                          "prioritize", config.routes.prioritize_verb, "preempt", config.routes.preempt_verb, "bind",
                          config.routes.bind_verb, "client_certificates",
                          config.client_ca_file.empty() ? "not asked" : "required"));
  std::unique_ptr<net::HttpServer> health;
  if (config.health_port != 0) {
    health = net::MakeHttpServer(HealthServerOptions(config));
    health->Start(MakeHealthRouter(state, metrics, not_ready));
    spdlog::info(logging::JsonFields("serving health and metrics", "url", health->BaseUrl()));
  }

  std::optional<process::TlsReload> tls;
  std::optional<process::TlsReload> health_tls;
  if (!config.tls_cert_file.empty()) {
    tls.emplace(*server, net::HttpTlsFiles{config.tls_cert_file, config.tls_key_file, config.client_ca_file, config.client_names});
    if (health) health_tls.emplace(*health, net::HttpTlsFiles{config.tls_cert_file, config.tls_key_file, ""}, "health");
  }
  stop.Wait(std::chrono::seconds(config.tls_reload_seconds), [&tls, &health_tls] {
    if (tls) tls->Check();
    if (health_tls) health_tls->Check();
  });
  if (health) health->Stop();
  server->Stop();  // Stops accepting and waits for in-flight requests.
#if GANGPLANK_EXTENDER_WITH_KUBE
  informers.Stop();  // Before the feed whose handlers they call goes away.
  feed.Stop();
#endif
  spdlog::info(logging::JsonFields("stopped"));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gangplank-extender: kube-scheduler HTTP extender (filter, prioritize, preempt)"};
  app.set_version_flag("--version", std::string("gangplank-extender ") + GANGPLANK_VERSION);
  ServiceConfig config;
  AddServiceFlags(app, config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    logging::SetUpJsonLogging("gangplank-extender", config.log_level);
#if GANGPLANK_EXTENDER_WITH_KUBE
    config.handlers.plan_seal = cache::ReadPlanSealKey(config.plan_seal_key_file);
#endif
    return Run(config);
  } catch (const std::exception& e) {
    spdlog::critical(logging::JsonFields("fatal", "error", e.what()));
    return 1;
  }
}
