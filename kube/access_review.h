// Who is calling, and may they: the API server's TokenReview (authentication.k8s.io/v1) and
// SubjectAccessReview (authorization.k8s.io/v1), as an aggregated API server or kubelet delegates both.
// A component that serves its own HTTPS endpoint to users asks the API server instead of trusting
// anything the caller says about itself. The caller's credentials need `create` on tokenreviews and
// subjectaccessreviews (what the built-in ClusterRole system:auth-delegator grants).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kube/client.h"

namespace gangplank::kube {

struct ReviewedUser {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

struct TokenReviewResult {
  bool authenticated = false;
  ReviewedUser user;
  std::string error;  // The API server's reason for refusing the token, when it gives one.
};

// What a user wants to do, as RBAC names it (a resource request).
struct AccessRequest {
  std::string verb;
  std::string group;  // "" for core
  std::string resource;
  std::string namespace_;
  std::string name;  // "" for the whole collection
};

struct AccessDecision {
  bool allowed = false;
  std::string reason;  // The authorizer's reason, when it gives one.
};

// POST a TokenReview of `token`. Throws ApiError when the API server cannot be asked (the caller answers
// 503, not 401: an outage is not a bad token). With `audiences`, the token must have been issued for one
// of them (the review's spec.audiences; its status.audiences must name one back): a token meant for the
// API server or another service is then refused, so no service that receives tokens can replay them here.
TokenReviewResult ReviewToken(Client& client, const std::string& token, const std::vector<std::string>& audiences = {});
// POST a SubjectAccessReview for `user` doing `request`. Throws ApiError as ReviewToken.
AccessDecision ReviewAccess(Client& client, const ReviewedUser& user, const AccessRequest& request);

namespace resources {
const ResourceDescriptor& TokenReviews();
const ResourceDescriptor& SubjectAccessReviews();
}  // namespace resources

}  // namespace gangplank::kube
