// What kube-apiserver does to the built-in kinds the double stores beyond the core ones (core Pods'
// resources, apps/v1 Deployments, core Services, ConfigMaps and Secrets, rbac.authorization.k8s.io/v1 roles and bindings,
// admissionregistration.k8s.io/v1 MutatingWebhookConfigurations) before it stores them: the defaults the
// project's clients rely on, and the validation a wrong manifest trips over, with upstream's wording.
// Only a subset of each kind's rules; builtin/README-level detail is in apiserver-double/README.md.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "apiserver-double/object_store.h"
#include "apiserver-double/resource_catalog.h"
#include "apiserver-double/schema/field_error.h"

namespace gangplank::apiserver_double::builtin {

// Defaults `object` in place and throws the 422 Invalid (errors.NewInvalid) when it breaks a rule.
// old: the stored state on update, null on create. Services already stored come from `txn` (ClusterIP
// allocation). Kinds without rules pass through untouched.
void Admit(const ResourceType& type, nlohmann::json& object, const nlohmann::json* old, const ObjectStore::Txn& txn);

// One kind each (builtin/<area>.cc); they default in place and return the field errors.
schema::FieldErrors AdmitPod(nlohmann::json& pod, const nlohmann::json* old);
schema::FieldErrors AdmitDeployment(nlohmann::json& deployment, const nlohmann::json* old);
schema::FieldErrors AdmitService(nlohmann::json& service, const nlohmann::json* old,
                                  const std::vector<ObjectPtr>& services);
schema::FieldErrors AdmitConfigMap(nlohmann::json& config_map, const nlohmann::json* old);
schema::FieldErrors AdmitSecret(nlohmann::json& secret, const nlohmann::json* old);
schema::FieldErrors AdmitRole(nlohmann::json& role, bool namespaced);
schema::FieldErrors AdmitRoleBinding(nlohmann::json& binding, const nlohmann::json* old, bool namespaced);
schema::FieldErrors AdmitMutatingWebhookConfiguration(nlohmann::json& configuration);

}  // namespace gangplank::apiserver_double::builtin
