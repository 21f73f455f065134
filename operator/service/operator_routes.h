// HTTP routes of gangplank-operator on net/http_server.h:
//   plain port:  GET /healthz (process up), GET /readyz (caches synced), GET /metrics (Prometheus text)
//   webhook port (TLS): POST <webhook path> (the mutating admission webhook, operator/webhook/pod_gate_webhook.h)
//   dry-run port (TLS): POST /dry-run (where and when a gang would land; body {"pods": [Pod, ...], "minMembers": n})
//                to a caller with a bearer token the API server vouches for (operator/service/dry_run_access.h),
//                reviewed before its body is read (operator/service/dry_run_head_check.h). A listener of its
//                own: however many dry-run callers connect, the API server's webhook calls find room.
// With --dry-run-auth=none the dry run is served on the plain port instead, to anyone.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

#include "net/http_server.h"
#include "operator/service/controller.h"
#include "operator/service/dry_run_access.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/webhook/pod_gate_webhook.h"

namespace gangplank::op {

// Limits of the dry run's input (issue 23: a 16 MiB body parsed into a full DOM took 1.5 GB): its body,
// the nesting depth of its JSON (a Pod is about 10 deep), and the pods of one gang.
inline constexpr std::size_t kDryRunBodyBytes = 4u << 20;
inline constexpr std::size_t kDryRunMaxDepth = 64;
inline constexpr std::size_t kDryRunMaxPods = 4096;

// The largest AdmissionReview the webhook takes: the API server caps an object at 3 MiB, and a review
// carries the object (and the old one on an update) with some framing.
inline constexpr std::size_t kWebhookBodyBytes = 8u << 20;
// Every other route: health checks and scrapes send no body.
inline constexpr std::size_t kSmallBodyBytes = 64u << 10;

// One port's dry run: none (`hint` says where it is served instead), open to anyone (no `access`), or to
// callers `access` lets in.
struct DryRunRoute {
  Controller* controller = nullptr;
  std::optional<DryRunAccess> access;
  std::string hint;
};

net::HttpHandler MakeOperatorRouter(Controller& controller, OperatorMetrics& metrics, DryRunRoute dry_run,
                                    std::size_t max_body_bytes = kDryRunBodyBytes);
// Body limits, enforced by the HTTP server before a body is read: `dry_run_bytes` for POST /dry-run,
// kWebhookBodyBytes for POST `webhook_path` (when not empty), kSmallBodyBytes for every other route.
net::HttpBodyLimit OperatorBodyLimit(std::size_t dry_run_bytes = kDryRunBodyBytes, const std::string& webhook_path = "");
nlohmann::json ParseDryRunBody(const std::string& body);
// The webhook port: /healthz and POST `path`; /dry-run answers 404 with `dry_run_hint` (where it is served).
net::HttpHandler MakeWebhookRouter(const std::string& path, WebhookOptions options, OperatorMetrics& metrics,
                                   std::string dry_run_hint = {});
// The dry-run port: /healthz and POST /dry-run.
net::HttpHandler MakeDryRunRouter(DryRunRoute dry_run, std::size_t max_body_bytes = kDryRunBodyBytes);

}  // namespace gangplank::op
