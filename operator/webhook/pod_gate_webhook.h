// The mutating admission webhook that holds gangplank's pods back until their gang is admitted: for a
// Pod CREATE whose spec.schedulerName is one of gangplank's, it adds the scheduling gate
// gangplank.io/admission (a JSON patch in an admission.k8s.io/v1 AdmissionReview response), and removes
// the annotations only the operator may write (a plan or checkpoint request the operator never made).
// A pod naming a queue its namespace or priority may not use is refused with the reason (403).
// Everything else is allowed unchanged. Served by the operator binary over TLS; see operator/README.md for the
// failurePolicy chosen and why.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "net/http_server.h"

namespace gangplank::op {

// Why a pod of `namespace_` with its own queue label (if any) and priority may not be created: its queue
// does not admit it (cache/crd/queue_access.h); "" when it may.
using QueueRefusal = std::function<std::string(const std::string& namespace_, const std::optional<std::string>& queue_label,
                                               std::int32_t priority)>;

struct WebhookOptions {
  std::vector<std::string> scheduler_names{"gangplank"};
  std::size_t max_body_bytes = 4u << 20;
  QueueRefusal queue_refusal;  // Unset: queues are checked later (the gang's condition, the extender).
};

enum class WebhookOutcome { kGated, kAlreadyGated, kSkipped, kBadRequest, kRefused };

struct WebhookReply {
  net::HttpResponse response;
  WebhookOutcome outcome = WebhookOutcome::kSkipped;
  std::string pod;  // "namespace/name" (or generateName) when the request named one.
  size_t stripped = 0;  // Operator-owned annotations the patch removes (kOperatorOwnedAnnotations).
};

// Answers one AdmissionReview. A body that is not an AdmissionReview v1 with a request gets HTTP 400
// and a message naming what is wrong (the API server then applies the webhook's failurePolicy).
WebhookReply ReviewPod(const std::string& body, const WebhookOptions& options);

}  // namespace gangplank::op
