// HTTP routes of gangplank-operator on net/http_server.h:
//   plain port:  GET /healthz (process up), GET /readyz (caches synced), GET /metrics (Prometheus text),
//                POST /dry-run (where and when a gang would land; body {"pods": [Pod, ...], "minMembers": n})
//   TLS port:    POST <webhook path> (the mutating admission webhook, operator/webhook/pod_gate_webhook.h)
#pragma once

#include "net/http_server.h"
#include "operator/service/controller.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/webhook/pod_gate_webhook.h"

namespace gangplank::op {

net::HttpHandler MakeOperatorRouter(Controller& controller, OperatorMetrics& metrics, std::size_t max_body_bytes);
net::HttpHandler MakeWebhookRouter(const std::string& path, WebhookOptions options, OperatorMetrics& metrics);

}  // namespace gangplank::op
