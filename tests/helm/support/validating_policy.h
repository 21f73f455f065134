// A rendered ValidatingAdmissionPolicy run the way the API server runs it, on the project's own CEL
// (cel/): its matchConstraints (resources with subresources, operations, namespaceSelector), its
// matchConditions, its variables in order, and its validations, the first failing one giving the message.
// For the chart tests of the policies' rules; the real-cluster suites prove the same on kube-apiserver.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gangplank::helm_testing {

// One admission request as the policy sees it.
struct PolicyRequest {
  std::string operation = "CREATE";  // CREATE or UPDATE
  std::string subresource;           // "" or "status"
  std::string namespace_name = "team-a";
  std::map<std::string, std::string> namespace_labels;  // kubernetes.io/metadata.name is added
  std::string username = "system:serviceaccount:team-a:default";
  nlohmann::json object;
  nlohmann::json old_object;  // UPDATE only
};

class ValidatingPolicy {
 public:
  explicit ValidatingPolicy(nlohmann::json policy);

  // Whether matchConstraints and matchConditions select the request.
  bool Selects(const PolicyRequest& request) const;
  // The message of the first validation the request fails, or nullopt when the policy lets it through
  // (or does not select it). An expression that errors is a failure with the error's text, as under
  // failurePolicy Fail.
  std::optional<std::string> Denial(const PolicyRequest& request) const;

 private:
  bool MatchesResource(const PolicyRequest& request) const;
  bool MatchesNamespace(const PolicyRequest& request) const;
  nlohmann::json policy_;
};

}  // namespace gangplank::helm_testing
