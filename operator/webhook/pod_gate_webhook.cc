#include "operator/webhook/pod_gate_webhook.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "cache/objects/conventions.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

WebhookReply Bad(const std::string& why) {
  WebhookReply r;
  r.response = net::HttpResponse::text(400, "invalid AdmissionReview: " + why + "\n");
  r.outcome = WebhookOutcome::kBadRequest;
  return r;
}

std::string PodName(const Json& pod, const Json& request) {
  const Json meta = pod.value("metadata", Json::object());
  std::string ns = meta.value("namespace", request.value("namespace", std::string()));
  std::string name = meta.value("name", std::string());
  if (name.empty()) name = meta.value("generateName", std::string()) + "*";
  return ns + "/" + name;
}

// Why the pod is not ours to gate (empty when it is).
std::string NotOurs(const Json& request, const Json& pod, const WebhookOptions& options) {
  const Json kind = request.value("kind", Json::object());
  if (kind.value("kind", "") != "Pod" || kind.value("group", "") != "") return "not a Pod";
  if (request.value("operation", "") != "CREATE") return "not a CREATE";
  if (request.value("subResource", std::string()) != "") return "a subresource";
  const Json spec = pod.value("spec", Json::object());
  const std::string scheduler = spec.value("schedulerName", std::string("default-scheduler"));
  if (std::find(options.scheduler_names.begin(), options.scheduler_names.end(), scheduler) ==
      options.scheduler_names.end()) {
    return "scheduler " + scheduler;
  }
  // A pod created bound (spec.nodeName) bypasses every scheduler; the API server refuses gates on it.
  if (!spec.value("nodeName", std::string()).empty()) return "already bound";
  return {};
}

// JSON patch operations removing the annotations only the operator writes: a pod created with them
// (copied from an admitted pod, or forged) would otherwise carry a plan the operator never made.
Json WithoutOperatorAnnotations(const Json& pod) {
  Json ops = Json::array();
  const auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return ops;
  const auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return ops;
  for (const std::string_view key : cache::kOperatorOwnedAnnotations) {
    if (!annotations->contains(key)) continue;
    std::string path = "/metadata/annotations/";
    for (const char c : key) path += c == '/' ? std::string("~1") : std::string(1, c);  // RFC 6901 escape.
    ops.push_back({{"op", "remove"}, {"path", path}});
  }
  return ops;
}

// The queue check for a pod of ours, "" when it passes or there is no check.
std::string QueueRefusalOf(const Json& pod, const Json& request, const WebhookOptions& options) {
  if (!options.queue_refusal) return {};
  const Json meta = pod.value("metadata", Json::object());
  const std::string ns = meta.value("namespace", request.value("namespace", std::string()));
  std::optional<std::string> label;
  if (const auto labels = meta.find("labels"); labels != meta.end() && labels->is_object()) {
    if (const auto q = labels->find(cache::kQueueLabel); q != labels->end() && q->is_string()) label = q->get<std::string>();
  }
  // The Priority admission plugin has resolved spec.priority from the PriorityClass before webhooks run.
  const Json spec = pod.value("spec", Json::object());
  const auto priority = spec.find("priority");
  const std::int32_t p = priority != spec.end() && priority->is_number_integer() ? priority->get<std::int32_t>() : 0;
  return options.queue_refusal(ns, label, p);
}

}  // namespace

WebhookReply ReviewPod(const std::string& body, const WebhookOptions& options) {
  if (body.size() > options.max_body_bytes) return Bad("body larger than " + std::to_string(options.max_body_bytes) + " bytes");
  const Json review = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (review.is_discarded() || !review.is_object()) return Bad("body is not a JSON object");
  if (review.value("kind", "") != "AdmissionReview") return Bad("kind must be AdmissionReview");
  const std::string api_version = review.value("apiVersion", "");
  if (api_version != "admission.k8s.io/v1") return Bad("apiVersion must be admission.k8s.io/v1, got '" + api_version + "'");
  const auto request = review.find("request");
  if (request == review.end() || !request->is_object()) return Bad("request missing");
  const auto uid = request->find("uid");
  if (uid == request->end() || !uid->is_string() || uid->get<std::string>().empty()) return Bad("request.uid missing");
  const Json pod = request->value("object", Json::object());
  if (!pod.is_object()) return Bad("request.object is not an object");

  Json response{{"uid", *uid}, {"allowed", true}};
  WebhookReply reply;
  reply.pod = PodName(pod, *request);
  if (NotOurs(*request, pod, options).empty()) {
    if (std::string why = QueueRefusalOf(pod, *request, options); !why.empty()) {
      response["allowed"] = false;
      response["status"] = {{"code", 403}, {"reason", "Forbidden"}, {"message", "gangplank: " + why}};
      reply.outcome = WebhookOutcome::kRefused;
      reply.response = net::HttpResponse::json(
          200, Json{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}}.dump());
      return reply;
    }
    const Json spec = pod.value("spec", Json::object());
    const Json gates = spec.value("schedulingGates", Json::array());
    if (!gates.is_array()) return Bad("request.object.spec.schedulingGates is not a list");
    const bool has_gate = std::any_of(gates.begin(), gates.end(), [](const Json& g) {
      return g.is_object() && g.value("name", "") == cache::kAdmissionGate;
    });
    Json patch = WithoutOperatorAnnotations(pod);
    reply.stripped = patch.size();
    if (has_gate) {
      reply.outcome = WebhookOutcome::kAlreadyGated;
    } else {
      const Json gate{{"name", std::string(cache::kAdmissionGate)}};
      patch.push_back(gates.empty() ? Json{{"op", "add"}, {"path", "/spec/schedulingGates"}, {"value", Json::array({gate})}}
                                    : Json{{"op", "add"}, {"path", "/spec/schedulingGates/-"}, {"value", gate}});
      reply.outcome = WebhookOutcome::kGated;
    }
    if (!patch.empty()) {
      response["patchType"] = "JSONPatch";
      response["patch"] = base::Base64Encode(patch.dump());
    }
  }
  reply.response = net::HttpResponse::json(
      200, Json{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}}.dump());
  return reply;
}

}  // namespace gangplank::op
