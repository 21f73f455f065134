#include "tests/helm/support/rbac_rules.h"

#include <optional>
#include <sstream>
#include <tuple>

namespace gangplank::helm_testing {

bool Grant::operator<(const Grant& o) const {
  return std::tie(namespace_name, group, resource, verb, resource_name) <
         std::tie(o.namespace_name, o.group, o.resource, o.verb, o.resource_name);
}

std::string Grant::text() const {
  std::string s = (namespace_name.empty() ? "" : "[" + namespace_name + "] ") + (group.empty() ? "core" : group) + "/" + resource +
                  " " + verb;
  return resource_name.empty() ? s : s + " " + resource_name;
}

std::string RequestAttributes::text() const {
  if (!resource_request) return verb + " (non-resource)";
  return verb + " " + (group.empty() ? "core" : group) + "/" + resource + (namespace_name.empty() ? "" : " in " + namespace_name) +
         (name.empty() ? "" : " named " + name);
}

namespace {

std::vector<std::string> strings(const json& node, const char* key) {
  std::vector<std::string> out;
  if (node.contains(key) && node[key].is_array()) {
    for (const auto& v : node[key]) out.push_back(v.get<std::string>());
  }
  return out;
}

bool names_account(const json& binding, const std::string& ns, const std::string& name) {
  for (const auto& s : binding.value("subjects", json::array())) {
    if (s.value("kind", "") == "ServiceAccount" && s.value("name", "") == name && s.value("namespace", "") == ns) return true;
  }
  return false;
}

void add_rules(const json& role, const std::string& ns, std::set<Grant>& out) {
  for (const auto& rule : role.value("rules", json::array())) {
    std::vector<std::string> names = strings(rule, "resourceNames");
    if (names.empty()) names.push_back("");
    for (const auto& g : strings(rule, "apiGroups")) {
      for (const auto& r : strings(rule, "resources")) {
        for (const auto& v : strings(rule, "verbs")) {
          for (const auto& n : names) out.insert({ns, g, r, v, n});
        }
      }
    }
  }
}

std::string query_value(const std::string& query, const std::string& key) {
  std::stringstream in(query);
  std::string part;
  while (std::getline(in, part, '&')) {
    const auto eq = part.find('=');
    if (part.substr(0, eq) == key) return eq == std::string::npos ? "" : part.substr(eq + 1);
  }
  return "";
}

bool matches(const std::string& granted, const std::string& wanted) { return granted == "*" || granted == wanted; }

}  // namespace

std::set<Grant> grants_of(const RenderedObjects& objects, const std::string& ns, const std::string& name,
                          std::vector<std::string>* unresolved) {
  std::set<Grant> out;
  for (const char* kind : {"ClusterRoleBinding", "RoleBinding"}) {
    for (const auto& binding : objects.of_kind(kind)) {
      if (!names_account(binding, ns, name)) continue;
      const std::string binding_ns = std::string(kind) == "RoleBinding" ? binding["metadata"].value("namespace", "") : "";
      const std::string role_kind = binding["roleRef"].value("kind", "");
      const std::string role_name = binding["roleRef"].value("name", "");
      std::optional<json> role;
      for (const auto& r : objects.of_kind(role_kind)) {
        const bool same_ns = role_kind == "ClusterRole" || r["metadata"].value("namespace", "") == binding_ns;
        if (r["metadata"].value("name", "") == role_name && same_ns) role = r;
      }
      if (!role) {
        if (unresolved != nullptr) unresolved->push_back(role_kind + "/" + role_name + (binding_ns.empty() ? "" : " in " + binding_ns));
        continue;
      }
      add_rules(*role, binding_ns, out);
    }
  }
  return out;
}

RequestAttributes attributes_of(const std::string& method, const std::string& path, const std::string& query) {
  RequestAttributes a;
  std::vector<std::string> parts;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '/')) {
    if (!part.empty()) parts.push_back(part);
  }
  std::size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    a.group = parts[1];
    i = 3;
  } else {
    a.resource_request = false;
    a.verb = method == "GET" ? "get" : method;
    return a;
  }
  if (i >= parts.size()) {  // /api/v1, /apis/g/v: discovery
    a.resource_request = false;
    a.verb = "get";
    return a;
  }
  if (parts[i] == "namespaces" && i + 2 < parts.size()) {
    a.namespace_name = parts[i + 1];
    i += 2;
  }
  a.resource = parts[i];
  if (i + 1 < parts.size()) a.name = parts[i + 1];
  if (i + 2 < parts.size()) a.resource += "/" + parts[i + 2];
  if (a.resource == "namespaces" && !a.name.empty() && a.namespace_name.empty()) a.namespace_name = a.name;
  if (method == "GET") {
    a.verb = query_value(query, "watch") == "true" || query_value(query, "watch") == "1" ? "watch" : a.name.empty() ? "list" : "get";
  } else if (method == "POST") {
    a.verb = "create";
  } else if (method == "PUT") {
    a.verb = "update";
  } else if (method == "PATCH") {
    a.verb = "patch";
  } else if (method == "DELETE") {
    a.verb = a.name.empty() ? "deletecollection" : "delete";
  }
  return a;
}

bool allowed(const std::set<Grant>& grants, const RequestAttributes& r) {
  if (!r.resource_request) return true;
  for (const auto& g : grants) {
    if (!g.namespace_name.empty() && g.namespace_name != r.namespace_name) continue;
    if (!matches(g.group, r.group) || !matches(g.resource, r.resource) || !matches(g.verb, r.verb)) continue;
    // resourceNames never match lists, watches of a collection or creates (the name is not known yet).
    if (!g.resource_name.empty() && g.resource_name != r.name) continue;
    return true;
  }
  return false;
}

}  // namespace gangplank::helm_testing
