// Who may ask the dry run (issue 23): a bearer token the API server vouches for, whose user may create pods
// in every namespace the gang's pods name. The reviews are answered here by tables; the real API server
// answers them in tests/real-cluster/tenant_attacks_test.cc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "operator/service/dry_run_access.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

net::HttpRequest WithAuthorization(const std::string& value) {
  net::HttpRequest r;
  r.method = "POST";
  r.path = "/dry-run";
  if (!value.empty()) r.headers["authorization"] = value;
  return r;
}

// alice (token "alice-token") may create pods in team-a only; every other token is unknown.
DryRunAccess Tables(std::vector<kube::AccessRequest>* asked = nullptr) {
  return DryRunAccess{
      [](const std::string& token) {
        kube::TokenReviewResult r;
        if (token == "alice-token") {
          r.authenticated = true;
          r.user.username = "alice";
          r.user.groups = {"system:authenticated"};
        } else {
          r.error = "invalid bearer token";
        }
        return r;
      },
      [asked](const kube::ReviewedUser& user, const kube::AccessRequest& request) {
        if (asked != nullptr) asked->push_back(request);
        return kube::AccessDecision{user.username == "alice" && request.namespace_ == "team-a", "RBAC: no binding"};
      }};
}

int StatusOf(const std::optional<net::HttpResponse>& refusal) { return refusal ? refusal->status : 0; }

TEST(DryRunAccess, NoTokenOrAnotherSchemeIsUnauthorized) {
  for (const char* header : {"", "Basic YWxpY2U6cHc=", "Bearer", "Bearer    "}) {
    const auto refusal = RefuseDryRunCaller(WithAuthorization(header), {"team-a"}, Tables());
    EXPECT_EQ(StatusOf(refusal), 401) << header;
  }
}

TEST(DryRunAccess, ATokenTheApiServerRefusesIsUnauthorizedWithItsReason) {
  const auto refusal = RefuseDryRunCaller(WithAuthorization("Bearer forged"), {"team-a"}, Tables());
  ASSERT_EQ(StatusOf(refusal), 401);
  EXPECT_NE(refusal->body.find("invalid bearer token"), std::string::npos) << refusal->body;
}

TEST(DryRunAccess, AUserMayAskOnlyAboutNamespacesWhereTheyMayCreatePods) {
  std::vector<kube::AccessRequest> asked;
  EXPECT_FALSE(RefuseDryRunCaller(WithAuthorization("bearer alice-token"), {"team-a"}, Tables(&asked)).has_value())
      << "the scheme is case-insensitive";
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].verb, "create");
  EXPECT_EQ(asked[0].resource, "pods");
  EXPECT_EQ(asked[0].group, "");

  const auto refusal = RefuseDryRunCaller(WithAuthorization("Bearer alice-token"), {"team-a", "team-b"}, Tables());
  ASSERT_EQ(StatusOf(refusal), 403);
  EXPECT_NE(refusal->body.find("\\\"alice\\\" may not create pods in namespace \\\"team-b\\\""), std::string::npos)
      << refusal->body;
}

TEST(DryRunAccess, AnApiServerThatCannotBeAskedIsUnavailableNotUnauthorized) {
  DryRunAccess down = Tables();
  down.review_token = [](const std::string&) -> kube::TokenReviewResult { throw std::runtime_error("connection refused"); };
  const auto refusal = RefuseDryRunCaller(WithAuthorization("Bearer alice-token"), {"team-a"}, down);
  ASSERT_EQ(StatusOf(refusal), 503);
  EXPECT_NE(refusal->body.find("connection refused"), std::string::npos);
}

// A caller the head check authenticated before its body was read (dry_run_head_check.h) is not reviewed
// again; what it may ask about still is.
TEST(DryRunAccess, ACallerAuthenticatedBeforeItsBodyIsOnlyCheckedForItsNamespaces) {
  net::HttpRequest request = WithAuthorization("");
  kube::ReviewedUser alice;
  alice.username = "alice";
  request.context = alice;
  EXPECT_EQ(StatusOf(RefuseDryRunCaller(request, {"team-a"}, Tables())), 0);
  EXPECT_EQ(StatusOf(RefuseDryRunCaller(request, {"team-b"}, Tables())), 403);
}

TEST(DryRunAccess, NamespacesAreThePodsOwnOrDefault) {
  const Json body = Json::parse(R"({"pods":[{"metadata":{"name":"a","namespace":"team-a"}},{"metadata":{"name":"b"}},
                                            {"metadata":{"namespace":""}},"junk",{"metadata":{"namespace":7}}]})");
  EXPECT_EQ(DryRunNamespaces(body), (std::set<std::string>{"team-a", "default"}));
  EXPECT_TRUE(DryRunNamespaces(Json::object()).empty());
}

}  // namespace
}  // namespace gangplank::op
