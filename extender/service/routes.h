// HTTP routing of the extender service on net/http_server.h: the verbs (POST <prefix>/<verb>),
// /healthz, /readyz (ready once the cache has synced) and /metrics (Prometheus text format).
#pragma once

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

// The handler to start the server with. All referenced objects must outlive the server. `bind` serves
// config.bind_verb; without it that route answers 404.
net::HttpHandler MakeRouter(ExtenderHandlers& handlers, const cache::ClusterState& state, ExtenderMetrics& metrics,
                            const RouteConfig& config, BindVerb* bind = nullptr);

}  // namespace gangplank::extender
