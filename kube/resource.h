// Resource descriptors (group, version, plural, scope) and the request paths and list/watch queries
// built from them. Custom resources use the same descriptor, so every call is generic over the kind.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gangplank::kube {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

struct ResourceDescriptor {
  std::string group;  // "" for core
  std::string version;
  std::string plural;
  std::string kind;
  bool namespaced = true;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // Collection path; for a namespaced resource an empty namespace means "across all namespaces".
  std::string CollectionPath(const std::string& ns = "") const;
  // Object path; throws std::invalid_argument if name is empty or a namespaced object has no namespace.
  std::string ObjectPath(const std::string& ns, const std::string& name, const std::string& subresource = "") const;
};

namespace resources {
const ResourceDescriptor& Pods();
const ResourceDescriptor& Nodes();
const ResourceDescriptor& Namespaces();
const ResourceDescriptor& Events();
const ResourceDescriptor& PodDisruptionBudgets();
const ResourceDescriptor& Leases();
const ResourceDescriptor& CustomResourceDefinitions();
// Kubernetes' own gangs (scheduling.k8s.io/v1beta1, Kubernetes 1.37, gate GenericWorkload).
const ResourceDescriptor& PodGroups();
// Dynamic Resource Allocation (resource.k8s.io/v1, GA since Kubernetes 1.34).
const ResourceDescriptor& ResourceSlices();
const ResourceDescriptor& DeviceClasses();
const ResourceDescriptor& ResourceClaims();
const ResourceDescriptor& ResourceClaimTemplates();
}  // namespace resources

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::optional<long> limit;
  std::string continue_token;
  std::optional<std::string> resource_version;  // nullopt = unset (consistent read)
  std::string resource_version_match;           // "", "Exact", "NotOlderThan"
  std::optional<long> timeout_seconds;
  bool allow_watch_bookmarks = false;
  bool watch = false;

  QueryParams ToQuery() const;
};

// Percent-encodes one path segment or query component (RFC 3986 unreserved set kept as is).
std::string UrlEncode(const std::string& value);
// path + "?" + encoded query.
std::string BuildTarget(const std::string& path, const QueryParams& query);

}  // namespace gangplank::kube
