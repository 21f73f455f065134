// The resource types the double serves: the built-in ones the project uses plus those that created
// CustomResourceDefinitions define. Storage is keyed by group + plural (version independent).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gangplank::apiserver_double {

namespace schema {
class CustomResourceSchema;
}

struct ResourceType {
  std::string group;    // "" for core
  std::string version;  // "v1"
  std::string plural;   // "pods"
  std::string singular;
  std::string kind;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  bool has_status = false;           // status subresource: main writes ignore .status and vice versa
  bool custom = false;               // defined by a CRD (no strategic merge patch)
  bool storage_version = true;       // the version objects are stored in
  nlohmann::json printer_columns = nlohmann::json::array();  // CRD additionalPrinterColumns
  std::vector<std::string> extra_subresources;                // e.g. "binding", "eviction"
  // The CRD version's compiled openAPIV3Schema (custom types only): pruning, defaulting, validation.
  std::shared_ptr<const schema::CustomResourceSchema> schema;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods" or "leases.coordination.k8s.io": the key used by the public API and storage.
  std::string GroupResource() const { return group.empty() ? plural : plural + "." + group; }
};

class ResourceCatalog {
 public:
  ResourceCatalog();  // registers the built-in types

  const ResourceType* find(const std::string& group, const std::string& version, const std::string& plural) const;
  const ResourceType* FindKind(const std::string& api_version, const std::string& kind) const;
  // By "plural" or "plural.group" (any served version; the storage version when several).
  const ResourceType* FindGroupResource(const std::string& group_resource) const;

  // Registers (or replaces) the served versions of a CRD; throws ApiError(422) if the spec is invalid.
  void InstallCrd(const nlohmann::json& crd);
  void RemoveCrd(const std::string& crd_name);
  // Checks a CRD spec without installing it, compiling each version's schema and CEL rules; returns
  // the compiled schemas by version name.
  using CompiledSchemas = std::map<std::string, std::shared_ptr<const schema::CustomResourceSchema>>;
  static CompiledSchemas ValidateCrd(const nlohmann::json& crd);

  std::vector<ResourceType> all() const;
  // group -> versions, in a stable order (core group first).
  std::vector<std::string> groups() const;
  std::vector<std::string> versions(const std::string& group) const;
  std::vector<ResourceType> resources(const std::string& group, const std::string& version) const;

 private:
  void Add(ResourceType type, const std::string& owner_crd = "");
  std::vector<ResourceType> types_;
  std::vector<std::string> owners_;  // parallel to types_: CRD name or ""
};

}  // namespace gangplank::apiserver_double
