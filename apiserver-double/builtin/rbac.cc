// rbac.authorization.k8s.io/v1 roles and bindings: the rules of pkg/apis/rbac/validation
// (ValidatePolicyRule, ValidateRoleBinding / ValidateClusterRoleBinding, ValidateRoleBindingSubject) and
// the immutable roleRef of updates ("cannot change roleRef": a binding must be deleted and re-created).
#include <string>

#include "apiserver-double/builtin/builtin_admission.h"
#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

bool NonEmptyArray(const json& rule, const char* key) {
  return rule.contains(key) && rule[key].is_array() && !rule[key].empty();
}

std::string JsonRoleRef(const json& ref) {
  return "{\"APIGroup\":" + s::GoJson(ref.value("apiGroup", "")) + ",\"Kind\":" + s::GoJson(ref.value("kind", "")) +
         ",\"Name\":" + s::GoJson(ref.value("name", "")) + "}";
}

}  // namespace

s::FieldErrors AdmitRole(json& role, bool namespaced) {
  s::FieldErrors errors;
  const json rules = role.value("rules", json::array());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    const std::string path = "rules[" + std::to_string(i) + "]";
    if (!NonEmptyArray(rule, "verbs")) errors.push_back(s::Required(path + ".verbs", "verbs must contain at least one value"));
    if (NonEmptyArray(rule, "nonResourceURLs")) {
      if (namespaced) {
        errors.push_back(s::Invalid(path + ".nonResourceURLs", rule["nonResourceURLs"], "namespaced rules cannot apply to non-resource URLs"));
      }
      if (NonEmptyArray(rule, "apiGroups") || NonEmptyArray(rule, "resources") || NonEmptyArray(rule, "resourceNames")) {
        errors.push_back(s::Invalid(path + ".nonResourceURLs", rule["nonResourceURLs"],
                                    "rules cannot apply to both regular resources and non-resource URLs"));
      }
      continue;
    }
    if (!NonEmptyArray(rule, "apiGroups")) {
      errors.push_back(s::Required(path + ".apiGroups", "resource rules must supply at least one api group"));
    }
    if (!NonEmptyArray(rule, "resources")) {
      errors.push_back(s::Required(path + ".resources", "resource rules must supply at least one resource"));
    }
  }
  return errors;
}

s::FieldErrors AdmitRoleBinding(json& binding, const json* old, bool namespaced) {
  s::FieldErrors errors;
  const json ref = binding.value("roleRef", json::object());
  if (ref.value("apiGroup", "") != "rbac.authorization.k8s.io") {
    errors.push_back(s::NotSupported("roleRef.apiGroup", ref.value("apiGroup", ""), {"rbac.authorization.k8s.io"}));
  }
  const std::string kind = ref.value("kind", "");
  if (namespaced ? (kind != "Role" && kind != "ClusterRole") : kind != "ClusterRole") {
    errors.push_back(namespaced ? s::NotSupported("roleRef.kind", kind, {"Role", "ClusterRole"})
                                : s::NotSupported("roleRef.kind", kind, {"ClusterRole"}));
  }
  if (ref.value("name", "").empty()) errors.push_back(s::Required("roleRef.name"));
  const json subjects = binding.value("subjects", json::array());
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    const json& subject = subjects[i];
    const std::string path = "subjects[" + std::to_string(i) + "]";
    if (subject.value("name", "").empty()) errors.push_back(s::Required(path + ".name"));
    const std::string subject_kind = subject.value("kind", "");
    if (subject_kind == "ServiceAccount") {
      if (!subject.value("apiGroup", "").empty()) errors.push_back(s::NotSupported(path + ".apiGroup", subject["apiGroup"], {""}));
      if (!namespaced && subject.value("namespace", "").empty()) errors.push_back(s::Required(path + ".namespace"));
    } else if (subject_kind == "User" || subject_kind == "Group") {
      if (subject.value("apiGroup", "") != "rbac.authorization.k8s.io") {
        errors.push_back(s::NotSupported(path + ".apiGroup", subject.value("apiGroup", ""), {"rbac.authorization.k8s.io"}));
      }
    } else {
      errors.push_back(s::NotSupported(path + ".kind", subject_kind, {"ServiceAccount", "User", "Group"}));
    }
  }
  if (old != nullptr && old->value("roleRef", json::object()) != ref) {
    s::FieldError e = s::Invalid("roleRef", nullptr, "cannot change roleRef");
    e.value_text = JsonRoleRef(ref);
    errors.push_back(e);
  }
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
