#include "apiserver-double/builtin/builtin_admission.h"

#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;

void Admit(const ResourceType& type, json& object, const json* old, const ObjectStore::Txn& txn) {
  if (type.custom) return;
  schema::FieldErrors errors;
  const std::string& kind = type.kind;
  if (kind == "Pod") {
    errors = AdmitPod(object, old);
  } else if (kind == "Deployment") {
    errors = AdmitDeployment(object, old);
  } else if (kind == "Service") {
    errors = AdmitService(object, old, txn.List("services", ""));
  } else if (kind == "ConfigMap") {
    errors = AdmitConfigMap(object, old);
  } else if (kind == "Secret") {
    errors = AdmitSecret(object, old);
  } else if (kind == "Role" || kind == "ClusterRole") {
    errors = AdmitRole(object, type.namespaced);
  } else if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    errors = AdmitRoleBinding(object, old, type.namespaced);
  } else if (kind == "MutatingWebhookConfiguration") {
    errors = AdmitMutatingWebhookConfiguration(object);
  }
  if (!errors.empty()) {
    throw schema::InvalidStatus(type.group, kind, object.value("/metadata/name"_json_pointer, std::string()), errors);
  }
}

}  // namespace gangplank::apiserver_double::builtin
