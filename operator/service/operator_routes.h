// HTTP routes of gangplank-operator on net/http_server.h:
//   plain port:  GET /healthz (process up), GET /readyz (caches synced), GET /metrics (Prometheus text),
//                POST /dry-run (where and when a gang would land; body {"pods": [Pod, ...], "minMembers": n})
//   TLS port:    POST <webhook path> (the mutating admission webhook, operator/webhook/pod_gate_webhook.h)
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "net/http_server.h"
#include "operator/service/controller.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/webhook/pod_gate_webhook.h"

namespace gangplank::op {

// Limits of the dry run's input (issue 23: a 16 MiB body parsed into a full DOM took 1.5 GB): its body,
// the nesting depth of its JSON (a Pod is about 10 deep), and the pods of one gang.
inline constexpr std::size_t kDryRunBodyBytes = 4u << 20;
inline constexpr std::size_t kDryRunMaxDepth = 64;
inline constexpr std::size_t kDryRunMaxPods = 4096;

net::HttpHandler MakeOperatorRouter(Controller& controller, OperatorMetrics& metrics,
                                    std::size_t max_body_bytes = kDryRunBodyBytes);
// Body limits of the plain port: `dry_run_bytes` for POST /dry-run, 64 KiB for every other route (health
// checks and scrapes send none), enforced by the HTTP server before a body is read.
net::HttpBodyLimit OperatorBodyLimit(std::size_t dry_run_bytes = kDryRunBodyBytes);
// The dry run's request body as JSON, refusing nesting deeper than kDryRunMaxDepth while parsing; a
// discarded value when it is not JSON or too deep.
nlohmann::json ParseDryRunBody(const std::string& body);
net::HttpHandler MakeWebhookRouter(const std::string& path, WebhookOptions options, OperatorMetrics& metrics);

}  // namespace gangplank::op
