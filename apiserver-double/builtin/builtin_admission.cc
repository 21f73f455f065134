#include "apiserver-double/builtin/builtin_admission.h"

#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;

std::string go_string_map(const json& map) {
  std::string out = "map[string]string{";
  bool first = true;
  if (map.is_object()) {
    for (const auto& [key, value] : map.items()) {  // nlohmann keeps object keys sorted, as Go prints them
      out += (first ? "" : ", ") + schema::go_quote(key) + ":" + schema::go_quote(value.is_string() ? value.get<std::string>() : value.dump());
      first = false;
    }
  }
  return out + "}";
}

void admit(const ResourceType& type, json& object, const json* old, const ObjectStore::Txn& txn) {
  if (type.custom) return;
  schema::FieldErrors errors;
  const std::string& kind = type.kind;
  if (kind == "Deployment") {
    errors = admit_deployment(object, old);
  } else if (kind == "Service") {
    errors = admit_service(object, old, txn.list("services", ""));
  } else if (kind == "ConfigMap") {
    errors = admit_config_map(object, old);
  } else if (kind == "Secret") {
    errors = admit_secret(object, old);
  } else if (kind == "Role" || kind == "ClusterRole") {
    errors = admit_role(object, type.namespaced);
  } else if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    errors = admit_role_binding(object, old, type.namespaced);
  } else if (kind == "MutatingWebhookConfiguration") {
    errors = admit_mutating_webhook_configuration(object);
  }
  if (!errors.empty()) {
    throw schema::invalid_status(type.group, kind, object.value("/metadata/name"_json_pointer, std::string()), errors);
  }
}

}  // namespace gangplank::apiserver_double::builtin
