// The mutating webhook: pods naming gangplank's scheduler get the admission gate as a JSON patch in an
// admission.k8s.io/v1 response; anything else is allowed untouched; malformed reviews are refused.
#include "operator/webhook/pod_gate_webhook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/base64.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

std::string Review(const Json& pod, const std::string& operation = "CREATE") {
  return Json{{"apiVersion", "admission.k8s.io/v1"},
              {"kind", "AdmissionReview"},
              {"request",
               {{"uid", "req-1"},
                {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                {"operation", operation},
                {"namespace", "ml"},
                {"object", pod}}}}
      .dump();
}

Json Pod(const std::string& scheduler, Json gates = nullptr) {
  Json pod{{"metadata", {{"name", "w-0"}}}, {"spec", {{"schedulerName", scheduler}, {"containers", Json::array()}}}};
  if (!gates.is_null()) pod["spec"]["schedulingGates"] = gates;
  return pod;
}

TEST(PodGateWebhook, GatesPodsOfGangplanksScheduler) {
  const WebhookReply reply = ReviewPod(Review(Pod("gangplank")), {});
  EXPECT_EQ(reply.outcome, WebhookOutcome::kGated);
  EXPECT_EQ(reply.pod, "ml/w-0");
  ASSERT_EQ(reply.response.status, 200);
  const Json body = Json::parse(reply.response.body);
  EXPECT_EQ(body["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(body["response"]["uid"], "req-1");
  EXPECT_EQ(body["response"]["allowed"], true);
  EXPECT_EQ(body["response"]["patchType"], "JSONPatch");
  EXPECT_EQ(Json::parse(gangplank::base::Base64Decode(body["response"]["patch"].get<std::string>())),
            Json::parse(R"([{"op":"add","path":"/spec/schedulingGates","value":[{"name":"gangplank.io/admission"}]}])"));
}

TEST(PodGateWebhook, AppendsToExistingGatesAndLeavesGatedPodsAlone) {
  WebhookReply reply = ReviewPod(Review(Pod("gangplank", Json::array({{{"name", "other.io/gate"}}}))), {});
  EXPECT_EQ(reply.outcome, WebhookOutcome::kGated);
  const Json patch = Json::parse(gangplank::base::Base64Decode(Json::parse(reply.response.body)["response"]["patch"].get<std::string>()));
  EXPECT_EQ(patch[0]["path"], "/spec/schedulingGates/-");
  reply = ReviewPod(Review(Pod("gangplank", Json::array({{{"name", "gangplank.io/admission"}}}))), {});
  EXPECT_EQ(reply.outcome, WebhookOutcome::kAlreadyGated);
  EXPECT_FALSE(Json::parse(reply.response.body)["response"].contains("patch"));
}

// A pod created with a plan (copied from an admitted pod, or forged by a tenant) is created without it:
// only the operator writes plans and checkpoint requests. Other annotations stay.
TEST(PodGateWebhook, RemovesTheAnnotationsOnlyTheOperatorWrites) {
  for (const bool gated : {false, true}) {
    Json pod = Pod("gangplank", gated ? Json::array({{{"name", "gangplank.io/admission"}}}) : Json(nullptr));
    pod["metadata"]["annotations"] = {{"gangplank.io/planned-node", "gpu-7"},
                                      {"gangplank.io/admission-id", "99999999999-deadbeef"},
                                      {"gangplank.io/checkpoint-requested", "2026-01-01T00:00:00Z"},
                                      {"gangplank.io/checkpoint-done", "2026-01-01T00:00:00Z"},
                                      {"team", "a"}};
    const WebhookReply reply = ReviewPod(Review(pod), {});
    EXPECT_EQ(reply.stripped, 3u);
    EXPECT_EQ(reply.outcome, gated ? WebhookOutcome::kAlreadyGated : WebhookOutcome::kGated);
    const Json response = Json::parse(reply.response.body)["response"];
    EXPECT_EQ(response["allowed"], true);
    const Json patch = Json::parse(gangplank::base::Base64Decode(response["patch"].get<std::string>()));
    const Json patched = pod.patch(patch);  // The patch must apply to the pod as sent.
    EXPECT_EQ(patched["metadata"]["annotations"], (Json{{"gangplank.io/checkpoint-done", "2026-01-01T00:00:00Z"}, {"team", "a"}}));
    EXPECT_EQ(patched["spec"]["schedulingGates"], Json::array({{{"name", "gangplank.io/admission"}}}));
  }
  // Another scheduler's pod is not the webhook's; the admission policy refuses the annotations on it.
  Json other = Pod("default-scheduler");
  other["metadata"]["annotations"] = {{"gangplank.io/planned-node", "gpu-7"}};
  const WebhookReply reply = ReviewPod(Review(other), {});
  EXPECT_EQ(reply.outcome, WebhookOutcome::kSkipped);
  EXPECT_FALSE(Json::parse(reply.response.body)["response"].contains("patch"));
}

// A pod naming a queue its namespace or priority may not use is refused at creation with the reason, so
// its owner learns at once; other schedulers' pods are not asked about.
TEST(PodGateWebhook, RefusesPodsWhoseQueueDoesNotAdmitThem) {
  WebhookOptions options;
  std::vector<std::string> asked;
  options.queue_refusal = [&](const std::string& ns, const std::optional<std::string>& label, std::int32_t priority) {
    asked.push_back(ns + "|" + label.value_or("(none)") + "|" + std::to_string(priority));
    return label == "team-a" ? "namespace " + ns + " may not use queue team-a (not in its spec.namespaces)" : std::string();
  };
  Json pod = Pod("gangplank");
  pod["metadata"]["labels"] = {{"gangplank.io/queue", "team-a"}};
  pod["spec"]["priority"] = 1000;
  WebhookReply reply = ReviewPod(Review(pod), options);
  EXPECT_EQ(reply.outcome, WebhookOutcome::kRefused);
  ASSERT_EQ(reply.response.status, 200);
  const Json response = Json::parse(reply.response.body)["response"];
  EXPECT_EQ(response["allowed"], false);
  EXPECT_EQ(response["uid"], "req-1");
  EXPECT_EQ(response["status"]["code"], 403);
  EXPECT_EQ(response["status"]["message"], "gangplank: namespace ml may not use queue team-a (not in its spec.namespaces)");
  EXPECT_FALSE(response.contains("patch"));
  EXPECT_EQ(asked, (std::vector<std::string>{"ml|team-a|1000"}));

  EXPECT_EQ(ReviewPod(Review(Pod("gangplank")), options).outcome, WebhookOutcome::kGated) << "no label: the namespace's queue";
  EXPECT_EQ(asked.back(), "ml|(none)|0");
  Json other = Pod("default-scheduler");
  other["metadata"]["labels"] = {{"gangplank.io/queue", "team-a"}};
  EXPECT_EQ(ReviewPod(Review(other), options).outcome, WebhookOutcome::kSkipped);
  EXPECT_EQ(asked.size(), 2u);
}

TEST(PodGateWebhook, SkipsOtherSchedulersBoundPodsAndUpdates) {
  for (const std::string& body : {Review(Pod("default-scheduler")), Review(Pod("gangplank"), "UPDATE")}) {
    const WebhookReply reply = ReviewPod(body, {});
    EXPECT_EQ(reply.outcome, WebhookOutcome::kSkipped);
    EXPECT_EQ(Json::parse(reply.response.body)["response"]["allowed"], true);
    EXPECT_FALSE(Json::parse(reply.response.body)["response"].contains("patch"));
  }
  Json bound = Pod("gangplank");
  bound["spec"]["nodeName"] = "n1";
  EXPECT_EQ(ReviewPod(Review(bound), {}).outcome, WebhookOutcome::kSkipped);
  Json no_scheduler = Pod("gangplank");
  no_scheduler["spec"].erase("schedulerName");  // default-scheduler
  EXPECT_EQ(ReviewPod(Review(no_scheduler), {}).outcome, WebhookOutcome::kSkipped);
  WebhookOptions options;
  options.scheduler_names = {"gangplank", "gangplank-b"};
  EXPECT_EQ(ReviewPod(Review(Pod("gangplank-b")), options).outcome, WebhookOutcome::kGated);
}

TEST(PodGateWebhook, MalformedReviewsAre400WithTheReason) {
  struct Case {
    std::string body;
    std::string says;
  };
  for (const Case& c : {Case{"{", "not a JSON object"},
                        Case{R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","request":{"uid":"x"}})",
                             "apiVersion must be admission.k8s.io/v1"},
                        Case{R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"})", "request missing"},
                        Case{R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{}})", "request.uid missing"},
                        Case{R"({"kind":"Pod"})", "kind must be AdmissionReview"}}) {
    const WebhookReply reply = ReviewPod(c.body, {});
    EXPECT_EQ(reply.outcome, WebhookOutcome::kBadRequest) << c.body;
    EXPECT_EQ(reply.response.status, 400);
    EXPECT_NE(reply.response.body.find(c.says), std::string::npos) << reply.response.body;
  }
  WebhookOptions tiny;
  tiny.max_body_bytes = 10;
  EXPECT_EQ(ReviewPod(Review(Pod("gangplank")), tiny).response.status, 400);
}

}  // namespace
}  // namespace gangplank::op
