#include "apiserver-double/builtin/builtin_admission.h"

#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;

void admit(const ResourceType& type, json& object, const json* old, const ObjectStore::Txn& txn) {
  if (type.custom) return;
  schema::FieldErrors errors;
  const std::string& kind = type.kind;
  if (kind == "Pod") {
    errors = admit_pod(object, old);
  } else if (kind == "Deployment") {
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
