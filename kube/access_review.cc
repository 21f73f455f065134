#include "kube/access_review.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace gangplank::kube {
namespace {

using Json = nlohmann::json;

ReviewedUser UserOf(const Json& user) {
  ReviewedUser out;
  out.username = user.value("username", "");
  out.uid = user.value("uid", "");
  if (const auto g = user.find("groups"); g != user.end() && g->is_array()) {
    for (const Json& group : *g) {
      if (group.is_string()) out.groups.push_back(group.get<std::string>());
    }
  }
  if (const auto e = user.find("extra"); e != user.end() && e->is_object()) {
    for (const auto& [key, values] : e->items()) {
      if (!values.is_array()) continue;
      for (const Json& v : values) {
        if (v.is_string()) out.extra[key].push_back(v.get<std::string>());
      }
    }
  }
  return out;
}

// Whether the review's status names one of the audiences asked for (the API server answers the ones the
// token is valid for; an authenticator that ignores audiences answers none).
bool NamesAnAudience(const Json& status, const std::vector<std::string>& audiences) {
  const auto granted = status.find("audiences");
  if (granted == status.end() || !granted->is_array()) return false;
  for (const Json& a : *granted) {
    if (a.is_string() && std::find(audiences.begin(), audiences.end(), a.get<std::string>()) != audiences.end()) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

namespace resources {
const ResourceDescriptor& TokenReviews() {
  static const ResourceDescriptor r{"authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false};
  return r;
}
const ResourceDescriptor& SubjectAccessReviews() {
  static const ResourceDescriptor r{"authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false};
  return r;
}
}  // namespace resources

TokenReviewResult ReviewToken(Client& client, const std::string& token, const std::vector<std::string>& audiences) {
  Json spec{{"token", token}};
  if (!audiences.empty()) spec["audiences"] = audiences;
  const Json review{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", spec}};
  const Json answer = client.Create(resources::TokenReviews(), "", review);
  const Json status = answer.value("status", Json::object());
  TokenReviewResult result;
  result.authenticated = status.value("authenticated", false);
  result.error = status.value("error", "");
  if (result.authenticated) result.user = UserOf(status.value("user", Json::object()));
  // An authenticated review without a user name is no identity to authorize.
  if (result.user.username.empty()) result.authenticated = false;
  if (result.authenticated && !audiences.empty() && !NamesAnAudience(status, audiences)) {
    result.authenticated = false;
    result.error = "the token was not issued for audience " + Joined(audiences) + " (kubectl create token --audience " +
                   audiences.front() + ")";
  }
  return result;
}

AccessDecision ReviewAccess(Client& client, const ReviewedUser& user, const AccessRequest& request) {
  Json attributes{{"verb", request.verb}, {"group", request.group}, {"resource", request.resource}};
  if (!request.namespace_.empty()) attributes["namespace"] = request.namespace_;
  if (!request.name.empty()) attributes["name"] = request.name;
  Json spec{{"user", user.username}, {"groups", user.groups}, {"resourceAttributes", attributes}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  const Json review{{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  const Json status = client.Create(resources::SubjectAccessReviews(), "", review).value("status", Json::object());
  AccessDecision decision;
  // A denial wins even over an allowance (the API documents denied as "no, and stop asking").
  decision.allowed = status.value("allowed", false) && !status.value("denied", false);
  decision.reason = status.value("reason", "");
  if (decision.reason.empty()) decision.reason = status.value("evaluationError", "");
  return decision;
}

}  // namespace gangplank::kube
