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
  }
  return "unknown";
}

}  // namespace

net::HttpHandler MakeOperatorRouter(Controller& controller, OperatorMetrics& metrics, std::size_t max_body_bytes) {
  return net::MakeSyncHandler([&controller, &metrics, max_body_bytes](const net::HttpRequest& request) -> net::HttpResponse {
    const std::string& path = request.path;
    if (path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (path == "/readyz") {
      const std::string why = controller.NotReadyReason();
      return why.empty() ? net::HttpResponse::text(200, "ok\n") : net::HttpResponse::text(503, why + "\n");
    }
    if (path == "/metrics") {
      return net::HttpResponse::text(200, metrics.Scrape()).SetHeader("Content-Type", "text/plain; version=0.0.4");
    }
    if (path == "/dry-run") {
      if (request.method != "POST") return JsonError(405, "POST a JSON body {\"pods\": [Pod, ...]}").SetHeader("Allow", "POST");
      if (request.body.size() > max_body_bytes) return JsonError(413, "body larger than " + std::to_string(max_body_bytes) + " bytes");
      const Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (body.is_discarded() || !body.is_object()) return JsonError(400, "body is not a JSON object");
      if (!controller.synced()) return JsonError(503, controller.NotReadyReason());
      Json answer = controller.DryRun(body);
      const int status = answer.contains("error") ? 400 : 200;
      return net::HttpResponse::json(status, answer.dump());
    }
    return JsonError(404, "no route for " + request.method + " " + path);
  });
}

net::HttpHandler MakeWebhookRouter(const std::string& path, WebhookOptions options, OperatorMetrics& metrics) {
  return net::MakeSyncHandler([path, options, &metrics](const net::HttpRequest& request) -> net::HttpResponse {
    if (request.path == "/healthz") return net::HttpResponse::text(200, "ok\n");
    if (request.path != path) return JsonError(404, "no route for " + request.method + " " + request.path);
    if (request.method != "POST") return JsonError(405, "the webhook takes POST").SetHeader("Allow", "POST");
    WebhookReply reply = ReviewPod(request.body, options);
    metrics.Webhook(OutcomeName(reply.outcome));
    return std::move(reply.response);
  });
}

}  // namespace gangplank::op
