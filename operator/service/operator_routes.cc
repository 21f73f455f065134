#include "operator/service/operator_routes.h"

#include <nlohmann/json.hpp>

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

net::HttpResponse JsonError(int status, const std::string& message) {
  return net::HttpResponse::json(status, Json{{"error", message}}.dump());
}

const char* OutcomeName(WebhookOutcome o) {
  switch (o) {
    case WebhookOutcome::kGated: return "gated";
    case WebhookOutcome::kAlreadyGated: return "already_gated";
    case WebhookOutcome::kSkipped: return "skipped";
    case WebhookOutcome::kBadRequest: return "bad_request";
    case WebhookOutcome::kRefused: return "refused";
  }
  return "unknown";
}

// Thrown by the parser callback to stop at the first level too deep, before it is built.
struct TooDeep {};

}  // namespace

nlohmann::json ParseDryRunBody(const std::string& body) {
  try {
    return Json::parse(
        body,
        [](int depth, Json::parse_event_t, Json&) {
          // depth counts the levels already open: the outermost value starts at 0.
          if (static_cast<std::size_t>(depth) >= kDryRunMaxDepth) throw TooDeep{};
          return true;
        },
        /*allow_exceptions=*/false);
  } catch (const TooDeep&) {
    return Json(Json::value_t::discarded);
  }
}

net::HttpBodyLimit OperatorBodyLimit(std::size_t dry_run_bytes, const std::string& webhook_path) {
  return [dry_run_bytes, webhook_path](std::string_view method, std::string_view path) -> std::size_t {
    if (method != "POST") return kSmallBodyBytes;
    if (path == "/dry-run") return dry_run_bytes;
    if (!webhook_path.empty() && path == webhook_path) return kWebhookBodyBytes;
    return kSmallBodyBytes;
  };
}

namespace {

net::HttpResponse ServeDryRun(const net::HttpRequest& request, const DryRunRoute& route, std::size_t max_body_bytes) {
  if (route.controller == nullptr) return JsonError(404, route.hint.empty() ? "no dry run on this port" : route.hint);
  if (request.method != "POST") return JsonError(405, "POST a JSON body {\"pods\": [Pod, ...]}").SetHeader("Allow", "POST");
  if (request.body.size() > max_body_bytes) return JsonError(413, "body larger than " + std::to_string(max_body_bytes) + " bytes");
  // Parsed here, before the controller takes any lock: a large body never holds up an admission round.
  const Json body = ParseDryRunBody(request.body);
  if (body.is_discarded() || !body.is_object()) {
    return JsonError(400, "body is not a JSON object (or nests deeper than " + std::to_string(kDryRunMaxDepth) + ")");
  }
  if (const auto pods = body.find("pods"); pods != body.end() && pods->is_array() && pods->size() > kDryRunMaxPods) {
    return JsonError(413, "a dry run takes at most " + std::to_string(kDryRunMaxPods) + " pods");
  }
  if (route.access) {
    if (auto refusal = RefuseDryRunCaller(request, DryRunNamespaces(body), *route.access)) return std::move(*refusal);
  }
  Controller& controller = *route.controller;
  if (!controller.synced()) return JsonError(503, controller.NotReadyReason());
  Json answer = controller.DryRun(body);
  const int status = answer.contains("error") ? 400 : 200;
  return net::HttpResponse::json(status, answer.dump());
}

}  // namespace

net::HttpHandler MakeOperatorRouter(Controller& controller, OperatorMetrics& metrics, DryRunRoute dry_run,
                                    std::size_t max_body_bytes) {
  return net::MakeSyncHandler([&controller, &metrics, dry_run = std::move(dry_run), max_body_bytes](const net::HttpRequest& request) -> net::HttpResponse {
    const std::string& path = request.path;
    if (path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (path == "/readyz") {
      const std::string why = controller.NotReadyReason();
      return why.empty() ? net::HttpResponse::text(200, "ok\n") : net::HttpResponse::text(503, why + "\n");
    }
    if (path == "/metrics") {
      return net::HttpResponse::text(200, metrics.Scrape()).SetHeader("Content-Type", "text/plain; version=0.0.4");
    }
    if (path == "/dry-run") return ServeDryRun(request, dry_run, max_body_bytes);
    return JsonError(404, "no route for " + request.method + " " + path);
  });
}

net::HttpHandler MakeWebhookRouter(const std::string& path, WebhookOptions options, OperatorMetrics& metrics,
                                   std::string dry_run_hint) {
  return net::MakeSyncHandler([path, options, &metrics, dry_run_hint = std::move(dry_run_hint)](const net::HttpRequest& request) -> net::HttpResponse {
    if (request.path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (request.path == "/dry-run") return JsonError(404, dry_run_hint.empty() ? "no dry run on this port" : dry_run_hint);
    if (request.path != path) return JsonError(404, "no route for " + request.method + " " + request.path);
    if (request.method != "POST") return JsonError(405, "the webhook takes POST").SetHeader("Allow", "POST");
    WebhookReply reply = ReviewPod(request.body, options);
    metrics.Webhook(OutcomeName(reply.outcome));
    return std::move(reply.response);
  });
}

net::HttpHandler MakeDryRunRouter(DryRunRoute dry_run, std::size_t max_body_bytes) {
  return net::MakeSyncHandler([dry_run = std::move(dry_run), max_body_bytes](const net::HttpRequest& request) -> net::HttpResponse {
    if (request.path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (request.path == "/dry-run") return ServeDryRun(request, dry_run, max_body_bytes);
    return JsonError(404, "no route for " + request.method + " " + request.path);
  });
}

}  // namespace gangplank::op
