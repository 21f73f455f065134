#include "apiserver-double/resource_catalog.h"

#include <algorithm>
#include <set>

#include "apiserver-double/api_error.h"
#include "apiserver-double/schema/custom_resource_schema.h"

namespace gangplank::apiserver_double {
namespace {

ResourceType builtin(std::string group, std::string plural, std::string singular, std::string kind, bool namespaced,
                     bool has_status, std::vector<std::string> short_names = {}) {
  ResourceType t;
  t.group = std::move(group);
  t.version = "v1";
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.kind = std::move(kind);
  t.namespaced = namespaced;
  t.has_status = has_status;
  t.short_names = std::move(short_names);
  return t;
}

}  // namespace

ResourceCatalog::ResourceCatalog() {
  auto pods = builtin("", "pods", "pod", "Pod", true, true, {"po"});
  pods.categories = {"all"};
  pods.extra_subresources = {"binding", "eviction"};
  Add(pods);
  Add(builtin("", "nodes", "node", "Node", false, true, {"no"}));
  Add(builtin("", "namespaces", "namespace", "Namespace", false, true, {"ns"}));
  Add(builtin("", "events", "event", "Event", true, false, {"ev"}));
  Add(builtin("policy", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, true, {"pdb"}));
  Add(builtin("coordination.k8s.io", "leases", "lease", "Lease", true, false));
  Add(builtin("apiextensions.k8s.io", "customresourcedefinitions", "customresourcedefinition",
              "CustomResourceDefinition", false, true, {"crd", "crds"}));
  // What an installation (the Helm chart, the plain manifests) creates: builtin/ defaults and checks them.
  auto services = builtin("", "services", "service", "Service", true, true, {"svc"});
  services.categories = {"all"};
  Add(services);
  Add(builtin("", "serviceaccounts", "serviceaccount", "ServiceAccount", true, false, {"sa"}));
  Add(builtin("", "configmaps", "configmap", "ConfigMap", true, false, {"cm"}));
  Add(builtin("", "secrets", "secret", "Secret", true, false));
  auto deployments = builtin("apps", "deployments", "deployment", "Deployment", true, true, {"deploy"});
  deployments.categories = {"all"};
  Add(deployments);
  Add(builtin("rbac.authorization.k8s.io", "roles", "role", "Role", true, false));
  Add(builtin("rbac.authorization.k8s.io", "rolebindings", "rolebinding", "RoleBinding", true, false));
  Add(builtin("rbac.authorization.k8s.io", "clusterroles", "clusterrole", "ClusterRole", false, false));
  Add(builtin("rbac.authorization.k8s.io", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, false));
  Add(builtin("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
              "MutatingWebhookConfiguration", false, false));
  Add(builtin("networking.k8s.io", "networkpolicies", "networkpolicy", "NetworkPolicy", true, false, {"netpol"}));
  Add(builtin("admissionregistration.k8s.io", "validatingadmissionpolicies", "validatingadmissionpolicy",
              "ValidatingAdmissionPolicy", false, true));
  Add(builtin("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
              "ValidatingAdmissionPolicyBinding", false, false));
}

void ResourceCatalog::Add(ResourceType type, const std::string& owner_crd) {
  types_.push_back(std::move(type));
  owners_.push_back(owner_crd);
}

const ResourceType* ResourceCatalog::find(const std::string& group, const std::string& version,
                                          const std::string& plural) const {
  for (const auto& t : types_) {
    if (t.group == group && t.version == version && t.plural == plural) return &t;
  }
  return nullptr;
}

const ResourceType* ResourceCatalog::FindKind(const std::string& api_version, const std::string& kind) const {
  for (const auto& t : types_) {
    if (t.ApiVersion() == api_version && t.kind == kind) return &t;
  }
  return nullptr;
}

const ResourceType* ResourceCatalog::FindGroupResource(const std::string& group_resource) const {
  const ResourceType* found = nullptr;
  for (const auto& t : types_) {
    if (t.GroupResource() == group_resource && (found == nullptr || t.storage_version)) found = &t;
  }
  return found;
}

ResourceCatalog::CompiledSchemas ResourceCatalog::ValidateCrd(const nlohmann::json& crd) {
  const std::string name = crd.value("/metadata/name"_json_pointer, std::string());
  const auto& spec = crd.contains("spec") ? crd["spec"] : nlohmann::json::object();
  auto text = [&](const char* pointer) {
    const auto ptr = nlohmann::json::json_pointer(pointer);
    return spec.contains(ptr) && spec[ptr].is_string() ? spec[ptr].get<std::string>() : std::string();
  };
  const std::string kind = "CustomResourceDefinition";
  if (text("/group").empty()) throw Invalid(kind, name, "spec.group", "Required value");
  if (text("/names/plural").empty()) throw Invalid(kind, name, "spec.names.plural", "Required value");
  if (text("/names/kind").empty()) throw Invalid(kind, name, "spec.names.kind", "Required value");
  if (name != text("/names/plural") + "." + text("/group")) {
    throw Invalid(kind, name, "metadata.name", "must be spec.names.plural+\".\"+spec.group");
  }
  const std::string scope = text("/scope");
  if (scope != "Namespaced" && scope != "Cluster") {
    throw Invalid(kind, name, "spec.scope", "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  }
  if (!spec.contains("versions") || !spec["versions"].is_array() || spec["versions"].empty()) {
    throw Invalid(kind, name, "spec.versions", "Required value: must have exactly one version marked as storage version");
  }
  int storage = 0;
  std::set<std::string> seen;
  for (const auto& v : spec["versions"]) {
    const std::string vname = v.value("name", std::string());
    if (vname.empty()) throw Invalid(kind, name, "spec.versions[].name", "Required value");
    if (!seen.insert(vname).second) throw Invalid(kind, name, "spec.versions", "Duplicate value: \"" + vname + "\"");
    if (v.value("storage", false)) ++storage;
    if (!v.contains("schema") || !v["schema"].contains("openAPIV3Schema")) {
      throw Invalid(kind, name, "spec.versions[" + vname + "].schema.openAPIV3Schema", "Required value: schemas are required");
    }
  }
  if (storage != 1) {
    throw Invalid(kind, name, "spec.versions", "Invalid value: must have exactly one version marked as storage version");
  }
  // As kube-apiserver compiles x-kubernetes-validations when the CRD is written, a rule that does not
  // compile makes the CRD itself invalid.
  CompiledSchemas compiled;
  schema::FieldErrors errors;
  for (std::size_t i = 0; i < spec["versions"].size(); ++i) {
    const auto& v = spec["versions"][i];
    compiled[v["name"]] = schema::CustomResourceSchema::Compile(
        v["schema"]["openAPIV3Schema"], "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema", errors);
  }
  if (!errors.empty()) throw schema::InvalidStatus("apiextensions.k8s.io", kind, name, errors);
  return compiled;
}

void ResourceCatalog::InstallCrd(const nlohmann::json& crd) {
  const CompiledSchemas schemas = ValidateCrd(crd);
  const std::string name = crd["metadata"]["name"];
  RemoveCrd(name);
  const auto& spec = crd["spec"];
  const auto& names = spec["names"];
  for (const auto& v : spec["versions"]) {
    if (!v.value("served", true)) continue;
    ResourceType t;
    t.group = spec["group"];
    t.version = v["name"];
    t.plural = names["plural"];
    t.kind = names["kind"];
    t.singular = names.value("singular", std::string());
    if (t.singular.empty()) {
      t.singular = t.kind;
      std::transform(t.singular.begin(), t.singular.end(), t.singular.begin(), [](unsigned char c) { return std::tolower(c); });
    }
    if (names.contains("shortNames")) t.short_names = names["shortNames"].get<std::vector<std::string>>();
    if (names.contains("categories")) t.categories = names["categories"].get<std::vector<std::string>>();
    t.namespaced = spec["scope"] == "Namespaced";
    t.has_status = v.contains("subresources") && v["subresources"].contains("status");
    t.custom = true;
    t.storage_version = v.value("storage", false);
    if (v.contains("additionalPrinterColumns")) t.printer_columns = v["additionalPrinterColumns"];
    t.schema = schemas.at(t.version);
    Add(std::move(t), name);
  }
}

void ResourceCatalog::RemoveCrd(const std::string& crd_name) {
  for (std::size_t i = types_.size(); i-- > 0;) {
    if (owners_[i] == crd_name) {
      types_.erase(types_.begin() + static_cast<std::ptrdiff_t>(i));
      owners_.erase(owners_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

std::vector<ResourceType> ResourceCatalog::all() const { return types_; }

std::vector<std::string> ResourceCatalog::groups() const {
  std::vector<std::string> out;
  for (const auto& t : types_) {
    if (std::find(out.begin(), out.end(), t.group) == out.end()) out.push_back(t.group);
  }
  return out;
}

std::vector<std::string> ResourceCatalog::versions(const std::string& group) const {
  std::vector<std::string> out;
  for (const auto& t : types_) {
    if (t.group == group && std::find(out.begin(), out.end(), t.version) == out.end()) out.push_back(t.version);
  }
  return out;
}

std::vector<ResourceType> ResourceCatalog::resources(const std::string& group, const std::string& version) const {
  std::vector<ResourceType> out;
  for (const auto& t : types_) {
    if (t.group == group && t.version == version) out.push_back(t);
  }
  return out;
}

}  // namespace gangplank::apiserver_double
