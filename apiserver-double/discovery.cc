// Legacy (non-aggregated) discovery: /api, /apis, /api/v1, /apis/<g>, /apis/<g>/<v>, /version and a
// minimal /openapi/v2. kubectl falls back to these when the aggregated form is not offered.
#include "apiserver-double/double_impl.h"

namespace gangplank::apiserver_double {

using nlohmann::json;

namespace {

json ResourceEntries(const std::vector<ResourceType>& types) {
  json resources = json::array();
  for (const auto& t : types) {
    json verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
    json entry = {{"name", t.plural}, {"singularName", t.singular}, {"namespaced", t.namespaced}, {"kind", t.kind}, {"verbs", verbs}};
    if (!t.short_names.empty()) entry["shortNames"] = t.short_names;
    if (!t.categories.empty()) entry["categories"] = t.categories;
    entry["storageVersionHash"] = "";
    resources.push_back(entry);
    if (t.has_status) {
      resources.push_back({{"name", t.plural + "/status"}, {"singularName", ""}, {"namespaced", t.namespaced},
                           {"kind", t.kind}, {"verbs", {"get", "patch", "update"}}});
    }
    for (const auto& sub : t.extra_subresources) {
      const std::string kind = sub == "binding" ? "Binding" : "Eviction";
      json sub_entry = {{"name", t.plural + "/" + sub}, {"singularName", ""}, {"namespaced", t.namespaced},
                        {"kind", kind}, {"verbs", {"create"}}};
      if (sub == "eviction") {
        sub_entry["group"] = "policy";
        sub_entry["version"] = "v1";
      }
      resources.push_back(sub_entry);
    }
  }
  return resources;
}

json GroupEntry(const std::string& group, const std::vector<std::string>& versions) {
  json list = json::array();
  for (const auto& v : versions) list.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", list}, {"preferredVersion", list.front()}};
}

// Just enough OpenAPI v3 for kubectl to see that PATCH takes fieldValidation (so it validates on the
// server instead of downloading schemas): one PATCH operation per kind, no schemas.
json OpenapiV3Document(const std::vector<ResourceType>& types) {
  json paths = json::object();
  json params = json::array();
  for (const char* name : {"dryRun", "fieldManager", "fieldValidation", "force"}) {
    params.push_back({{"name", name}, {"in", "query"}, {"schema", {{"type", name == std::string("force") ? "boolean" : "string"}}}});
  }
  for (const auto& t : types) {
    const std::string prefix = t.group.empty() ? "/api/" + t.version : "/apis/" + t.group + "/" + t.version;
    const std::string path = prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural + "/{name}";
    paths[path] = {{"patch",
                    {{"operationId", "patch" + t.kind},
                     {"parameters", params},
                     {"responses", {{"200", {{"description", "OK"}}}}},
                     {"x-kubernetes-action", "patch"},
                     {"x-kubernetes-group-version-kind", {{"group", t.group}, {"version", t.version}, {"kind", t.kind}}}}}};
  }
  return {{"openapi", "3.0.0"}, {"info", {{"title", "Kubernetes"}, {"version", "v1.35.0"}}}, {"paths", paths},
          {"components", {{"schemas", json::object()}}}};
}

}  // namespace

std::optional<net::HttpResponse> ApiServerDouble::Impl::discovery(const net::HttpRequest& req) const {
  if (req.method != "GET") return std::nullopt;
  const std::string& p = req.path;
  if (p == "/version" || p == "/version/") {
    // As a kube-apiserver 1.35 answers, the compatibility-version fields included.
    return JsonResponse(200, {{"major", "1"}, {"minor", "35"}, {"emulationMajor", "1"}, {"emulationMinor", "35"},
                               {"minCompatibilityMajor", "1"}, {"minCompatibilityMinor", "34"},
                               {"gitVersion", "v1.35.0-gangplank-double"},
                               {"gitCommit", "0000000000000000000000000000000000000000"}, {"gitTreeState", "clean"},
                               {"buildDate", "2026-01-01T00:00:00Z"}, {"goVersion", "go1.25.7"}, {"compiler", "gc"},
                               {"platform", "linux/amd64"}});
  }
  if (p == "/api" || p == "/api/") {
    return JsonResponse(200, {{"kind", "APIVersions"}, {"versions", {"v1"}},
                               {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", options_.host + ":" + std::to_string(port_)}}}}});
  }
  std::shared_lock lock(catalog_mutex_);
  if (p == "/apis" || p == "/apis/") {
    json groups = json::array();
    for (const auto& g : catalog_.groups()) {
      if (!g.empty()) groups.push_back(GroupEntry(g, catalog_.versions(g)));
    }
    return JsonResponse(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  }
  if (p == "/api/v1" || p == "/api/v1/") {
    return JsonResponse(200, {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", "v1"},
                               {"resources", ResourceEntries(catalog_.resources("", "v1"))}});
  }
  if (p.rfind("/apis/", 0) == 0) {
    std::string rest = p.substr(6);
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    const auto slash = rest.find('/');
    if (slash == std::string::npos) {
      const auto versions = catalog_.versions(rest);
      if (versions.empty()) return std::nullopt;
      json entry = GroupEntry(rest, versions);
      entry["kind"] = "APIGroup";
      entry["apiVersion"] = "v1";
      return JsonResponse(200, entry);
    }
    const std::string group = rest.substr(0, slash);
    const std::string version = rest.substr(slash + 1);
    if (version.find('/') != std::string::npos) return std::nullopt;
    const auto types = catalog_.resources(group, version);
    if (types.empty()) {
      return JsonResponse(404, ApiError(404, "NotFound", "the server could not find the requested resource").status());
    }
    return JsonResponse(200, {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", group + "/" + version},
                               {"resources", ResourceEntries(types)}});
  }
  if (p == "/openapi/v3" || p == "/openapi/v3/") {
    json paths = json::object();
    for (const auto& g : catalog_.groups()) {
      for (const auto& v : catalog_.versions(g)) {
        const std::string gv = g.empty() ? "api/" + v : "apis/" + g + "/" + v;
        paths[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv}};
      }
    }
    return JsonResponse(200, {{"paths", paths}});
  }
  if (p.rfind("/openapi/v3/", 0) == 0) {
    std::string gv = p.substr(12);
    std::string group, version;
    if (gv.rfind("api/", 0) == 0) {
      version = gv.substr(4);
    } else if (gv.rfind("apis/", 0) == 0 && gv.find('/', 5) != std::string::npos) {
      group = gv.substr(5, gv.find('/', 5) - 5);
      version = gv.substr(gv.find('/', 5) + 1);
    }
    const auto types = catalog_.resources(group, version);
    if (types.empty()) return JsonResponse(404, ApiError(404, "NotFound", "the server could not find the requested resource").status());
    return JsonResponse(200, OpenapiV3Document(types));
  }
  if (p.rfind("/openapi/", 0) == 0) {
    return JsonResponse(404, ApiError(404, "NotFound", "the server could not find the requested resource").status());
  }
  return std::nullopt;
}

}  // namespace gangplank::apiserver_double
