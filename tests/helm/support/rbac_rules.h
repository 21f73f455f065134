// What a ServiceAccount may do under the RBAC objects a render produced: its bindings followed to their
// (Cluster)Roles, rules expanded to (namespace, group, resource, verb, name) grants, and the
// authorizer's question "may it do this request?" answered as kube-apiserver's RBAC authorizer would.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tests/helm/support/rendered_objects.h"

namespace gangplank::helm_testing {

struct Grant {
  std::string namespace_name;  // "" = cluster-wide (ClusterRoleBinding)
  std::string group;
  std::string resource;        // "pods", "pods/status"
  std::string verb;
  std::string resource_name;   // "" = any
  bool operator<(const Grant& o) const;
  std::string text() const;    // "[ns] group/resource verb [name]"
};

// One API request in the authorizer's terms (k8s.io/apiserver RequestInfo).
struct RequestAttributes {
  std::string verb;            // get, list, watch, create, update, patch, delete, deletecollection
  std::string namespace_name;  // "" for cluster-scoped objects and all-namespace lists
  std::string group;
  std::string resource;        // with "/subresource"
  std::string name;
  bool resource_request = true;  // false for /api, /apis, /version, /openapi... (discovery)
  std::string text() const;
};

// The grants of ServiceAccount `namespace_name/name` under the rendered RBAC objects. Rules naming a
// ClusterRole the render does not contain (built-in roles such as system:kube-scheduler) are listed in
// `unresolved` instead.
std::set<Grant> grants_of(const RenderedObjects& objects, const std::string& namespace_name, const std::string& name,
                          std::vector<std::string>* unresolved = nullptr);

// Parses a request (method, decoded path, raw query) as kube-apiserver's RequestInfoFactory does.
RequestAttributes attributes_of(const std::string& method, const std::string& path, const std::string& query);

// Whether `grants` allow the request (discovery requests are always allowed: system:discovery).
bool allowed(const std::set<Grant>& grants, const RequestAttributes& request);

}  // namespace gangplank::helm_testing
