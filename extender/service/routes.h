// HTTP routing of the extender service on net/http_server.h: the verbs (POST <prefix>/<verb>),
// /healthz, /readyz (ready once the cache has synced, and while its watches work) and /metrics
// (Prometheus text format); and the limit on each route's request body.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "extender/service/bind_verb.h"
#include "extender/service/extender_handlers.h"
#include "extender/service/extender_metrics.h"
#include "cache/state/cluster_state.h"
#include "net/http_server.h"

namespace gangplank::extender {

struct RouteConfig {
  // Path prefix of the verbs: kube-scheduler calls <urlPrefix>/<verb>, so with urlPrefix
  // "http://host:8888/gangplank" the prefix is "/gangplank". An empty verb disables that route.
  std::string prefix;
  std::string filter_verb = "filter";
  std::string prioritize_verb = "prioritize";
  std::string preempt_verb = "preempt";
  // Off by default: kube-scheduler's own binder binds unless its config names a bindVerb.
  std::string bind_verb = "";
};

// Why the extender should not be called although its cache has synced ("" when it should): watch_health.h.
using NotReadyReason = std::function<std::string()>;

// The body of an ExtenderBindingArgs (four short strings) or of a GET is far below this; a larger one is
// not from kube-scheduler.
inline constexpr std::size_t kSmallBodyBytes = 64 * 1024;

// The handler to start the server with. All referenced objects must outlive the server. `bind` serves
// config.bind_verb; without it that route answers 404.
net::HttpHandler MakeRouter(ExtenderHandlers& handlers, const cache::ClusterState& state, ExtenderMetrics& metrics,
                            const RouteConfig& config, BindVerb* bind = nullptr, NotReadyReason not_ready = {});

// /healthz, /readyz and /metrics alone, for a listener of their own (--health-port): kubelet's probes and
// Prometheus reach it without the client certificate the verbs' listener asks for.
net::HttpHandler MakeHealthRouter(const cache::ClusterState& state, ExtenderMetrics& metrics, NotReadyReason not_ready = {});

// Request body limits: `verb_body_bytes` for filter, prioritize and preempt (the only large bodies
// kube-scheduler sends), kSmallBodyBytes for every other route.
net::HttpBodyLimit MakeBodyLimit(const RouteConfig& config, std::size_t verb_body_bytes);

}  // namespace gangplank::extender
