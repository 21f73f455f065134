// gangplank-extender: kube-scheduler's HTTP extender for gangplank. See extender/README.md.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <optional>

#include "cache/state/assume_expiry.h"
#include "extender/service/bind_verb.h"
#include "extender/service/expired_assumptions.h"
#include "logging/json_log.h"
#if GANGPLANK_EXTENDER_WITH_KUBE
#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/shared_informers.h"
#include "extender/service/kube_binder.h"
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
  if (!c.tls_cert_file.empty() || !c.tls_key_file.empty()) o.tls = net::HttpTlsFiles{c.tls_cert_file, c.tls_key_file};
  return o;
}

int Run(const ServiceConfig& config) {
  const process::StopSignals stop;  // Before any thread starts, so none of them is interrupted by one.

  cache::ClusterState state(config.topology_keys);
  state.SetQueues(config.queues);
  state.SetDefaultQueue(config.default_queue);
  state.SetAssumedPodTtl(std::chrono::seconds(config.assumed_pod_ttl_seconds));
  ExtenderMetrics metrics;
  UnseenPods unseen;
  ExtenderHandlers handlers(state, metrics, config.handlers, &unseen);
  // Checked every second, as kube-scheduler does; stopped before the state and metrics go away.
  const cache::AssumeExpiry expiry(state, std::chrono::seconds(1),
                                   [&metrics](const auto& expired) { ReportExpiredAssumptions(expired, metrics); });

  // Both outlive the server (declared before it). The binder goes first: its destructor answers the
  // bindings still queued, through the BindVerb.
  std::unique_ptr<BindVerb> bind;
  std::unique_ptr<PodBinder> binder;
#if GANGPLANK_EXTENDER_WITH_KUBE
  kube::ClusterConfig kube_config =
      config.kubeconfig.empty() ? kube::LoadInClusterConfig() : kube::LoadKubeconfig({config.kubeconfig});
  cache::SharedInformers informers(std::make_shared<kube::RestClient>(std::move(kube_config)));
  cache::ClusterStateFeed feed(informers, config.queues);
  feed.Attach(&state);
  informers.Start();
  feed.Start();
  if (!config.routes.bind_verb.empty()) {
    binder = std::make_unique<KubeBinder>(informers.client());
    bind = std::make_unique<BindVerb>(state, *binder, metrics, &unseen);
  }
#else
  spdlog::warn(logging::JsonFields("built without the kube component: the cache stays empty and /readyz never passes"));
  if (!config.routes.bind_verb.empty()) throw std::runtime_error("--bind-verb needs a build with the kube component");
#endif
  const net::HttpHandler router = MakeRouter(handlers, state, metrics, config.routes, bind.get());

  auto server = net::MakeHttpServer(ServerOptions(config));
  server->Start(router);
  spdlog::info(logging::JsonFields("serving", "url", server->BaseUrl(), "filter", config.routes.filter_verb,
                          "prioritize", config.routes.prioritize_verb, "preempt", config.routes.preempt_verb, "bind",
                          config.routes.bind_verb));

  std::optional<process::TlsReload> tls;
  if (!config.tls_cert_file.empty()) tls.emplace(*server, net::HttpTlsFiles{config.tls_cert_file, config.tls_key_file});
  stop.Wait(std::chrono::seconds(config.tls_reload_seconds), [&tls] { if (tls) tls->Check(); });
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
  ServiceConfig config;
  AddServiceFlags(app, config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    logging::SetUpJsonLogging("gangplank-extender", config.log_level);
    return Run(config);
  } catch (const std::exception& e) {
    spdlog::critical(logging::JsonFields("fatal", "error", e.what()));
    return 1;
  }
}
