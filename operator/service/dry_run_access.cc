#include "operator/service/dry_run_access.h"

#include <algorithm>
#include <any>
#include <cctype>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "logging/json_log.h"

namespace gangplank::op {
namespace {

using Json = nlohmann::json;

net::HttpResponse JsonError(int status, const std::string& message) {
  return net::HttpResponse::json(status, Json{{"error", message}}.dump());
}

// The token of "Authorization: Bearer <token>" (the scheme is case-insensitive, RFC 7235), or "".
std::string BearerToken(const net::HttpRequest& request) {
  const std::optional<std::string> header = request.header("authorization");
  if (!header || header->size() <= 7) return "";
  std::string scheme = header->substr(0, 7);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer ") return "";
  const std::size_t start = header->find_first_not_of(' ', 7);
  return start == std::string::npos ? "" : header->substr(start);
}

// The answer when the API server could not review the caller (its TokenReview or SubjectAccessReview failed).
net::HttpResponse Unreviewed(const std::exception& e) {
  spdlog::warn(logging::JsonFields("dry run: the API server could not review the caller", "error", e.what()));
  return JsonError(503, std::string("could not review the caller with the API server: ") + e.what());
}

}  // namespace

DryRunAccess KubeDryRunAccess(kube::Client& client, std::vector<std::string> audiences) {
  if (std::find(audiences.begin(), audiences.end(), "*") != audiences.end()) audiences.clear();
  return DryRunAccess{
      [&client, audiences](const std::string& token) { return kube::ReviewToken(client, token, audiences); },
      [&client](const kube::ReviewedUser& user, const kube::AccessRequest& request) {
        return kube::ReviewAccess(client, user, request);
      }};
}

std::set<std::string> DryRunNamespaces(const Json& body) {
  std::set<std::string> namespaces;
  const auto pods = body.find("pods");
  if (pods == body.end() || !pods->is_array()) return namespaces;
  for (const Json& pod : *pods) {
    const Json* ns = nullptr;
    if (pod.is_object()) {
      if (const auto meta = pod.find("metadata"); meta != pod.end() && meta->is_object()) {
        if (const auto n = meta->find("namespace"); n != meta->end() && n->is_string()) ns = &*n;
      }
    }
    namespaces.insert(ns != nullptr && !ns->get<std::string>().empty() ? ns->get<std::string>() : "default");
  }
  return namespaces;
}

bool HasBearerToken(const net::HttpRequest& head) { return !BearerToken(head).empty(); }

DryRunCaller AuthenticateDryRunCaller(const net::HttpRequest& head, const DryRunAccess& access) {
  DryRunCaller out;
  const std::string token = BearerToken(head);
  if (token.empty()) {
    out.refusal = JsonError(401, "the dry run needs \"Authorization: Bearer <token>\" (e.g. kubectl create token)")
                      .SetHeader("WWW-Authenticate", "Bearer");
    return out;
  }
  try {
    kube::TokenReviewResult who = access.review_token(token);
    if (!who.authenticated) {
      out.refusal = JsonError(401, "the API server did not accept the token" + (who.error.empty() ? "" : ": " + who.error))
                        .SetHeader("WWW-Authenticate", "Bearer");
      return out;
    }
    out.user = std::move(who.user);
  } catch (const std::exception& e) {
    out.refusal = Unreviewed(e);
  }
  return out;
}

std::optional<net::HttpResponse> RefuseDryRunCaller(const net::HttpRequest& request, const std::set<std::string>& namespaces,
                                                    const DryRunAccess& access) {
  std::optional<kube::ReviewedUser> user;
  if (const auto* known = std::any_cast<kube::ReviewedUser>(&request.context)) {
    user = *known;
  } else {
    DryRunCaller caller = AuthenticateDryRunCaller(request, access);
    if (caller.refusal) return std::move(caller.refusal);
    user = std::move(caller.user);
  }
  try {
    for (const std::string& ns : namespaces) {
      const kube::AccessDecision may = access.review_access(*user, kube::AccessRequest{"create", "", "pods", ns, ""});
      if (!may.allowed) {
        spdlog::info(logging::JsonFields("dry run refused", "user", user->username, "namespace", ns));
        return JsonError(403, "user \"" + user->username + "\" may not create pods in namespace \"" + ns + "\"" +
                                  (may.reason.empty() ? "" : ": " + may.reason));
      }
    }
  } catch (const std::exception& e) {
    return Unreviewed(e);
  }
  return std::nullopt;
}

}  // namespace gangplank::op
