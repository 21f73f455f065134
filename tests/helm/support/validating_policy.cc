#include "tests/helm/support/validating_policy.h"

#include <algorithm>
#include <utility>

#include "cel/activation.h"
#include "cel/json_value.h"
#include "cel/program.h"

namespace gangplank::helm_testing {
namespace {

using nlohmann::json;

bool Contains(const json& list, const std::string& item) {
  return std::any_of(list.begin(), list.end(), [&](const json& v) { return v == item; });
}

cel::Value Evaluate(const std::string& source, const cel::Activation& activation) {
  return cel::Program::Compile(source).Evaluate(activation);
}

// object, oldObject (null on CREATE) and request, as kube-apiserver binds them.
cel::Activation RequestActivation(const PolicyRequest& request) {
  cel::Activation activation;
  activation.Bind("object", cel::FromJson(request.object));
  activation.Bind("oldObject", cel::FromJson(request.old_object));
  activation.Bind("request", cel::FromJson(json{{"operation", request.operation},
                                                 {"namespace", request.namespace_name},
                                                 {"subResource", request.subresource},
                                                 {"userInfo", {{"username", request.username}}}}));
  return activation;
}

}  // namespace

ValidatingPolicy::ValidatingPolicy(json policy) : policy_(std::move(policy)) {}

bool ValidatingPolicy::MatchesResource(const PolicyRequest& request) const {
  const std::string resource = request.subresource.empty() ? "pods" : "pods/" + request.subresource;
  for (const json& rule : policy_.value("/spec/matchConstraints/resourceRules"_json_pointer, json::array())) {
    const json& resources = rule["resources"];
    const bool resource_matches = Contains(resources, resource) || Contains(resources, "*") ||
                                  (!request.subresource.empty() && Contains(resources, "pods/*"));
    if (resource_matches && (Contains(rule["operations"], request.operation) || Contains(rule["operations"], "*"))) return true;
  }
  return false;
}

bool ValidatingPolicy::MatchesNamespace(const PolicyRequest& request) const {
  std::map<std::string, std::string> labels = request.namespace_labels;
  labels["kubernetes.io/metadata.name"] = request.namespace_name;
  const json selector = policy_.value("/spec/matchConstraints/namespaceSelector"_json_pointer, json::object());
  const json match_labels = selector.contains("matchLabels") ? selector["matchLabels"] : json::object();
  for (auto it = match_labels.begin(); it != match_labels.end(); ++it) {
    if (!labels.count(it.key()) || labels.at(it.key()) != it->get<std::string>()) return false;
  }
  const json expressions = selector.contains("matchExpressions") ? selector["matchExpressions"] : json::array();
  for (const json& e : expressions) {
    const std::string key = e["key"];
    const std::string op = e["operator"];
    const bool has = labels.count(key) > 0;
    const bool in = has && Contains(e.value("values", json::array()), labels.at(key));
    if ((op == "In" && !in) || (op == "NotIn" && in) || (op == "Exists" && !has) || (op == "DoesNotExist" && has)) return false;
  }
  return true;
}

bool ValidatingPolicy::Selects(const PolicyRequest& request) const {
  if (!MatchesResource(request) || !MatchesNamespace(request)) return false;
  cel::Activation activation = RequestActivation(request);
  for (const json& condition : policy_.value("/spec/matchConditions"_json_pointer, json::array())) {
    if (!Evaluate(condition["expression"], activation).as<bool>()) return false;
  }
  return true;
}

std::optional<std::string> ValidatingPolicy::Denial(const PolicyRequest& request) const {
  if (!Selects(request)) return std::nullopt;
  cel::Activation activation = RequestActivation(request);
  cel::Map variables;
  activation.Bind("variables", variables);
  try {
    for (const json& v : policy_.value("/spec/variables"_json_pointer, json::array())) {
      variables.Set(v["name"].get<std::string>(), Evaluate(v["expression"], activation));
      activation.Bind("variables", variables);
    }
    for (const json& validation : policy_.value("/spec/validations"_json_pointer, json::array())) {
      if (Evaluate(validation["expression"], activation).as<bool>()) continue;
      if (validation.contains("messageExpression")) return Evaluate(validation["messageExpression"], activation).as<std::string>();
      return validation.value("message", "failed expression: " + validation["expression"].get<std::string>());
    }
  } catch (const std::exception& e) {
    return std::string("expression error: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace gangplank::helm_testing
