#include "kube/resource.h"

#include <stdexcept>

namespace gangplank::kube {
namespace {

std::string prefix(const ResourceDescriptor& r) {
  return r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
}

}  // namespace

std::string ResourceDescriptor::CollectionPath(const std::string& ns) const {
  if (namespaced && !ns.empty()) return prefix(*this) + "/namespaces/" + UrlEncode(ns) + "/" + plural;
  return prefix(*this) + "/" + plural;
}

std::string ResourceDescriptor::ObjectPath(const std::string& ns, const std::string& name,
                                            const std::string& subresource) const {
  if (name.empty()) throw std::invalid_argument("object path for " + plural + " needs a name");
  if (namespaced && ns.empty()) throw std::invalid_argument(plural + " '" + name + "' needs a namespace");
  std::string path = (namespaced ? prefix(*this) + "/namespaces/" + UrlEncode(ns) + "/" + plural : prefix(*this) + "/" + plural) +
                     "/" + UrlEncode(name);
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

namespace resources {
const ResourceDescriptor& Pods() {
  static const ResourceDescriptor r{"", "v1", "pods", "Pod", true};
  return r;
}
const ResourceDescriptor& PodGroups() {
  static const ResourceDescriptor r{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true};
  return r;
}
const ResourceDescriptor& Nodes() {
  static const ResourceDescriptor r{"", "v1", "nodes", "Node", false};
  return r;
}
const ResourceDescriptor& Namespaces() {
  static const ResourceDescriptor r{"", "v1", "namespaces", "Namespace", false};
  return r;
}
const ResourceDescriptor& Events() {
  static const ResourceDescriptor r{"", "v1", "events", "Event", true};
  return r;
}
const ResourceDescriptor& PodDisruptionBudgets() {
  static const ResourceDescriptor r{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true};
  return r;
}
const ResourceDescriptor& Leases() {
  static const ResourceDescriptor r{"coordination.k8s.io", "v1", "leases", "Lease", true};
  return r;
}
const ResourceDescriptor& CustomResourceDefinitions() {
  static const ResourceDescriptor r{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                    "CustomResourceDefinition", false};
  return r;
}
const ResourceDescriptor& ResourceSlices() {
  static const ResourceDescriptor r{"resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false};
  return r;
}
const ResourceDescriptor& DeviceClasses() {
  static const ResourceDescriptor r{"resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false};
  return r;
}
const ResourceDescriptor& ResourceClaims() {
  static const ResourceDescriptor r{"resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true};
  return r;
}
const ResourceDescriptor& ResourceClaimTemplates() {
  static const ResourceDescriptor r{"resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", true};
  return r;
}
}  // namespace resources

QueryParams ListOptions::ToQuery() const {
  QueryParams q;
  if (watch) q.emplace_back("watch", "1");
  if (!label_selector.empty()) q.emplace_back("labelSelector", label_selector);
  if (!field_selector.empty()) q.emplace_back("fieldSelector", field_selector);
  if (limit) q.emplace_back("limit", std::to_string(*limit));
  if (!continue_token.empty()) q.emplace_back("continue", continue_token);
  if (resource_version) q.emplace_back("resourceVersion", *resource_version);
  if (!resource_version_match.empty()) q.emplace_back("resourceVersionMatch", resource_version_match);
  if (timeout_seconds) q.emplace_back("timeoutSeconds", std::to_string(*timeout_seconds));
  if (allow_watch_bookmarks) q.emplace_back("allowWatchBookmarks", "true");
  return q;
}

std::string UrlEncode(const std::string& value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string BuildTarget(const std::string& path, const QueryParams& query) {
  std::string target = path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    target += sep;
    target += UrlEncode(k);
    target += '=';
    target += UrlEncode(v);
    sep = '&';
  }
  return target;
}

}  // namespace gangplank::kube
