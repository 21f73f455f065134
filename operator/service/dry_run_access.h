// Who may ask the dry run about which namespace (issue 23). A dry run reads the gang's owner and the pool
// it would land in with the operator's own rights, so it is answered only to a caller the API server
// vouches for (a bearer token, checked by TokenReview) who may create pods in every namespace the gang's
// pods name (checked by SubjectAccessReview): what the caller could learn by creating the pods anyway.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kube/access_review.h"
#include "net/http_server.h"

namespace gangplank::op {

// The API server's two reviews, as functions so that tests can answer them; each throws when the API
// server cannot be asked.
struct DryRunAccess {
  std::function<kube::TokenReviewResult(const std::string& token)> review_token;
  std::function<kube::AccessDecision(const kube::ReviewedUser&, const kube::AccessRequest&)> review_access;
};

// The reviews through the operator's API client; a token must be issued for one of `audiences` ("*" among
// them: any audience the API server accepts).
DryRunAccess KubeDryRunAccess(kube::Client& client, std::vector<std::string> audiences);

// The namespaces a dry run's pods name ("default" for a pod that names none, as the dry run reads it).
std::set<std::string> DryRunNamespaces(const nlohmann::json& body);

// Who sent a request, from its bearer token alone (its headers suffice: run before its body is read,
// dry_run_head_check.h): the user the API server names, or the answer (401 without a valid bearer token,
// 503 when the API server cannot be asked).
struct DryRunCaller {
  std::optional<kube::ReviewedUser> user;
  std::optional<net::HttpResponse> refusal;
};
DryRunCaller AuthenticateDryRunCaller(const net::HttpRequest& head, const DryRunAccess& access);
// Whether the request carries a bearer token at all (the rest needs the API server).
bool HasBearerToken(const net::HttpRequest& head);

// nullopt when the caller may dry-run pods in all `namespaces`; else the answer: 401 without a valid
// bearer token, 403 when a namespace is not the caller's to create pods in, 503 when the API server
// cannot be asked. A caller authenticated before its body was read (request.context holds its
// kube::ReviewedUser) is not reviewed again.
std::optional<net::HttpResponse> RefuseDryRunCaller(const net::HttpRequest& request, const std::set<std::string>& namespaces,
                                                    const DryRunAccess& access);

}  // namespace gangplank::op
