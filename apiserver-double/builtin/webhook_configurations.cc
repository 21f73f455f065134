// admissionregistration.k8s.io/v1 MutatingWebhookConfigurations: the v1 defaults
// (pkg/apis/admissionregistration/v1/defaults.go: failurePolicy Fail, matchPolicy Equivalent, empty
// selectors, timeoutSeconds 10, reinvocationPolicy Never, rule scope "*", service port 443) and the
// rules of pkg/apis/admissionregistration/validation validateMutatingWebhook: fully qualified unique
// names, sideEffects None or NoneOnDryRun, an accepted AdmissionReview version, exactly one of url or
// service, the enums, rule fields and matchConditions' names. matchConditions' CEL is not compiled.
#include <algorithm>
#include <set>
#include <string>

#include "apiserver-double/builtin/builtin_admission.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

void SetDefault(json& object, const char* key, const json& value) {
  if (!object.contains(key) || object[key].is_null()) object[key] = value;
}

void OneOf(const json& hook, const char* key, const std::string& path, const std::vector<std::string>& allowed,
            s::FieldErrors& errors) {
  if (!hook.contains(key)) return;
  const std::string value = hook[key].is_string() ? hook[key].get<std::string>() : hook[key].dump();
  for (const auto& a : allowed) {
    if (a == value) return;
  }
  errors.push_back(s::NotSupported(path + "." + key, value, allowed));
}

void ValidateRule(const json& rule, const std::string& path, s::FieldErrors& errors) {
  const json operations = rule.value("operations", json::array());
  if (operations.empty()) errors.push_back(s::Required(path + ".operations"));
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const std::string op = operations[i].is_string() ? operations[i].get<std::string>() : "";
    if (op != "*" && op != "CREATE" && op != "UPDATE" && op != "DELETE" && op != "CONNECT") {
      errors.push_back(s::NotSupported(path + ".operations[" + std::to_string(i) + "]", op,
                                        {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}));
    }
  }
  for (const char* key : {"apiGroups", "apiVersions", "resources"}) {
    if (!rule.contains(key) || !rule[key].is_array() || rule[key].empty()) errors.push_back(s::Required(path + "." + key));
  }
  OneOf(rule, "scope", path, {"*", "Cluster", "Namespaced"}, errors);
}

void ValidateHook(json& hook, const std::string& path, std::set<std::string>& names, s::FieldErrors& errors) {
  const std::string name = hook.value("name", "");
  int dots = 0;
  for (char c : name) dots += c == '.';
  if (name.empty()) {
    errors.push_back(s::Required(path + ".name"));
  } else if (dots < 2) {
    errors.push_back(s::Invalid(path + ".name", name, "should be a domain with at least three segments separated by dots"));
  } else if (!names.insert(name).second) {
    errors.push_back(s::Duplicate(path + ".name", name));
  }
  const json rules = hook.value("rules", json::array());
  for (std::size_t i = 0; i < rules.size(); ++i) ValidateRule(rules[i], path + ".rules[" + std::to_string(i) + "]", errors);
  OneOf(hook, "failurePolicy", path, {"Fail", "Ignore"}, errors);
  OneOf(hook, "matchPolicy", path, {"Equivalent", "Exact"}, errors);
  if (!hook.contains("sideEffects")) {
    errors.push_back(s::Required(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
  } else {
    OneOf(hook, "sideEffects", path, {"None", "NoneOnDryRun"}, errors);
  }
  const json timeout = hook.value("timeoutSeconds", json(10));
  if (!timeout.is_number_integer() || timeout.get<long long>() < 1 || timeout.get<long long>() > 30) {
    errors.push_back(s::Invalid(path + ".timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"));
  }
  OneOf(hook, "reinvocationPolicy", path, {"IfNeeded", "Never"}, errors);
  const json config = hook.value("clientConfig", json::object());
  const bool url = config.contains("url");
  const bool service = config.contains("service");
  if (url == service) {
    errors.push_back(s::Required(path + ".clientConfig", "exactly one of url or service is required"));
  } else if (service) {
    for (const char* key : {"name", "namespace"}) {
      if (config["service"].value(key, "").empty()) {
        errors.push_back(s::Required(path + ".clientConfig.service." + key, "service " + std::string(key) + " is required"));
      }
    }
    const std::string service_path = config["service"].value("path", "/");
    if (service_path.empty() || service_path.front() != '/') {
      errors.push_back(s::Invalid(path + ".clientConfig.service.path", service_path, "must start with a '/'"));
    }
  }
  const json conditions = hook.value("matchConditions", json::array());
  std::set<std::string> condition_names;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const std::string at = path + ".matchConditions[" + std::to_string(i) + "]";
    const std::string cname = conditions[i].value("name", "");
    if (cname.empty()) {
      errors.push_back(s::Required(at + ".name"));
    } else if (!condition_names.insert(cname).second) {
      errors.push_back(s::Duplicate(at + ".name", cname));
    }
    if (conditions[i].value("expression", "").empty()) errors.push_back(s::Required(at + ".expression"));
  }
  // validateMutatingWebhookConfiguration checks the versions after the rest of the hook.
  const json versions = hook.value("admissionReviewVersions", json::array());
  if (versions.empty()) {
    errors.push_back(s::Required(path + ".admissionReviewVersions", "must specify one of v1, v1beta1"));
  } else if (std::find(versions.begin(), versions.end(), "v1") == versions.end() &&
             std::find(versions.begin(), versions.end(), "v1beta1") == versions.end()) {
    errors.push_back(s::Invalid(path + ".admissionReviewVersions", versions, "must include at least one of v1, v1beta1"));
  }
}

}  // namespace

s::FieldErrors AdmitMutatingWebhookConfiguration(json& configuration) {
  s::FieldErrors errors;
  if (!configuration.contains("webhooks") || !configuration["webhooks"].is_array()) return errors;
  std::set<std::string> names;
  for (std::size_t i = 0; i < configuration["webhooks"].size(); ++i) {
    json& hook = configuration["webhooks"][i];
    SetDefault(hook, "failurePolicy", "Fail");
    SetDefault(hook, "matchPolicy", "Equivalent");
    SetDefault(hook, "namespaceSelector", json::object());
    SetDefault(hook, "objectSelector", json::object());
    SetDefault(hook, "timeoutSeconds", 10);
    SetDefault(hook, "reinvocationPolicy", "Never");
    if (hook.contains("rules") && hook["rules"].is_array()) {
      for (json& rule : hook["rules"]) SetDefault(rule, "scope", "*");
    }
    if (hook.contains("/clientConfig/service"_json_pointer) && hook["clientConfig"]["service"].is_object()) {
      SetDefault(hook["clientConfig"]["service"], "port", 443);
    }
    ValidateHook(hook, "webhooks[" + std::to_string(i) + "]", names, errors);
  }
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
