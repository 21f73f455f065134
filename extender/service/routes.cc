#include "extender/service/routes.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "extender/protocol/encode.h"

namespace gangplank::extender {
namespace {

std::string VerbPath(const std::string& prefix, const std::string& verb) {
  if (verb.empty()) return {};
  std::string p = prefix;
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!p.empty() && p.front() != '/') p.insert(p.begin(), '/');
  return p + "/" + verb;
}

net::HttpResponse MethodNotAllowed(const std::string& method) {
  return net::HttpResponse::json(405, EncodeErrorBody("extender verbs take POST, not " + method)).SetHeader("Allow", "POST");
}

net::HttpResponse JsonReply(Reply reply) { return net::HttpResponse::json(reply.status, std::move(reply.body)); }

// /healthz, /readyz or /metrics; nullopt for any other path.
std::optional<net::HttpResponse> HealthRoute(const std::string& path, const cache::ClusterState& state,
                                             ExtenderMetrics& metrics, const NotReadyReason& not_ready) {
  if (path == "/healthz") return net::HttpResponse::text(200, "ok\n");
  if (path == "/readyz") {
    if (!state.synced()) return net::HttpResponse::text(503, "cluster-state cache not synced yet\n");
    if (std::string why = not_ready ? not_ready() : std::string(); !why.empty()) return net::HttpResponse::text(503, why + "\n");
    return net::HttpResponse::text(200, "ok\n");
  }
  if (path == "/metrics") {
    std::string text = state.Read([&](const cache::StateView& view) { return metrics.Scrape(view, state.synced()); });
    return net::HttpResponse::text(200, std::move(text)).SetHeader("Content-Type", "text/plain; version=0.0.4");
  }
  return std::nullopt;
}

net::HttpResponse NoRoute(const net::HttpRequest& request) {
  return net::HttpResponse::json(404, EncodeErrorBody("no route for " + request.method + " " + request.path));
}

}  // namespace

net::HttpHandler MakeHealthRouter(const cache::ClusterState& state, ExtenderMetrics& metrics, NotReadyReason not_ready) {
  return net::MakeSyncHandler([&state, &metrics, not_ready = std::move(not_ready)](const net::HttpRequest& request) -> net::HttpResponse {
    if (auto health = HealthRoute(request.path, state, metrics, not_ready)) return std::move(*health);
    return NoRoute(request);
  });
}

net::HttpBodyLimit MakeBodyLimit(const RouteConfig& config, std::size_t verb_body_bytes) {
  return [verbs = std::vector<std::string>{VerbPath(config.prefix, config.filter_verb),
                                           VerbPath(config.prefix, config.prioritize_verb),
                                           VerbPath(config.prefix, config.preempt_verb)},
          verb_body_bytes](std::string_view, std::string_view path) {
    const bool verb = !path.empty() && std::find(verbs.begin(), verbs.end(), path) != verbs.end();
    return verb ? verb_body_bytes : kSmallBodyBytes;
  };
}

net::HttpHandler MakeRouter(ExtenderHandlers& handlers, const cache::ClusterState& state, ExtenderMetrics& metrics,
                            const RouteConfig& config, BindVerb* bind, NotReadyReason not_ready) {
  const std::string filter = VerbPath(config.prefix, config.filter_verb);
  const std::string prioritize = VerbPath(config.prefix, config.prioritize_verb);
  const std::string preempt = VerbPath(config.prefix, config.preempt_verb);
  const std::string bind_path = bind != nullptr ? VerbPath(config.prefix, config.bind_verb) : std::string();
  net::HttpHandler routes = net::MakeSyncHandler([&handlers, &state, &metrics, filter, prioritize, preempt,
                                                  not_ready = std::move(not_ready)](
                                                     const net::HttpRequest& request) -> net::HttpResponse {
    const std::string& path = request.path;
    const bool is_verb = !path.empty() && (path == filter || path == prioritize || path == preempt);
    if (is_verb) {
      if (request.method != "POST") return MethodNotAllowed(request.method);
      // The decoder pads the body in place (simdjson), so it works on its own copy.
      std::string body;
      body.reserve(request.body.size() + 64);
      body.assign(request.body);
      if (path == filter) return JsonReply(handlers.Filter(body));
      if (path == prioritize) return JsonReply(handlers.Prioritize(body));
      return JsonReply(handlers.Preempt(body));
    }
    if (auto health = HealthRoute(path, state, metrics, not_ready)) return std::move(*health);
    return NoRoute(request);
  });
  if (bind_path.empty()) return routes;
  // Binding waits on the API server, so it answers later, from the binder's thread.
  return [bind, bind_path, routes = std::move(routes)](const net::HttpRequest& request, net::HttpResponder responder) {
    if (request.path != bind_path) return routes(request, std::move(responder));
    if (request.method != "POST") return responder.Respond(MethodNotAllowed(request.method));
    bind->Handle(request, std::move(responder));
  };
}

}  // namespace gangplank::extender
