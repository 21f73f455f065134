// core/v1 Pods on create: a container's requests default to its limits (SetDefaults_Pod), and a resource
// that cannot be overcommitted (an extended resource such as nvidia.com/gpu, or hugepages) must be an
// integer, must have a limit, and its request must equal that limit (ValidateResourceRequirements). A
// GPU pod with requests alone is refused by a real kube-apiserver, so the double refuses it too.
#include <cmath>
#include <optional>
#include <string>

#include "apiserver-double/builtin/builtin_admission.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

// helper.IsOvercommitAllowed is false for these: names outside the kubernetes.io domain, and hugepages.
bool OvercommitForbidden(const std::string& name) {
  if (name.rfind("hugepages-", 0) == 0) return true;
  const auto slash = name.find('/');
  if (slash == std::string::npos) return false;
  const std::string domain = name.substr(0, slash);
  return domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io");
}

// The quantity as text, as the error prints it.
std::string QuantityText(const json& q) { return q.is_string() ? q.get<std::string>() : q.dump(); }

// The quantity in thousandths ("2" -> 2000, "500m" -> 500, "1k" -> 1e6); nullopt when unreadable.
std::optional<double> milli(const json& q) {
  if (q.is_number()) return q.get<double>() * 1000;
  if (!q.is_string()) return std::nullopt;
  const std::string text = q.get<std::string>();
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  static const std::pair<const char*, double> suffixes[] = {
      {"", 1},       {"m", 1e-3},   {"k", 1e3},    {"M", 1e6},    {"G", 1e9},    {"T", 1e12},   {"P", 1e15},
      {"E", 1e18},   {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
  for (const auto& [suffix, scale] : suffixes) {
    if (text.substr(used) == suffix) return number * scale * 1000;
  }
  return std::nullopt;
}

bool integral(const json& q) {
  const auto m = milli(q);
  return m && std::fmod(*m, 1000.0) == 0;
}

void DefaultRequests(json& resources) {
  if (!resources.contains("limits") || !resources["limits"].is_object()) return;
  for (const auto& [name, limit] : resources["limits"].items()) {
    if (!resources.contains("requests") || !resources["requests"].is_object()) resources["requests"] = json::object();
    if (!resources["requests"].contains(name)) resources["requests"][name] = limit;
  }
}

void ValidateResources(const json& resources, const std::string& path, s::FieldErrors& errors) {
  const json limits = resources.value("limits", json::object());
  const json requests = resources.value("requests", json::object());
  for (const auto& [name, q] : limits.items()) {
    if (OvercommitForbidden(name) && !integral(q)) {
      errors.push_back(s::Invalid(path + ".limits[" + name + "]", QuantityText(q), "must be an integer"));
    }
  }
  for (const auto& [name, q] : requests.items()) {
    if (!OvercommitForbidden(name)) continue;
    if (!integral(q)) errors.push_back(s::Invalid(path + ".requests[" + name + "]", QuantityText(q), "must be an integer"));
    if (!limits.contains(name)) {
      errors.push_back(s::Required(path + ".limits", "Limit must be set for non overcommitable resources"));
    } else if (milli(q) != milli(limits[name])) {
      errors.push_back(s::Invalid(path + ".requests", QuantityText(q),
                                  "must be equal to " + name + " limit of " + QuantityText(limits[name])));
    }
  }
}

}  // namespace

s::FieldErrors AdmitPod(json& pod, const json* old) {
  s::FieldErrors errors;
  if (old != nullptr || !pod.contains("spec") || !pod["spec"].is_object()) return errors;  // resources are fixed after create
  for (const char* list : {"initContainers", "containers"}) {
    json& containers = pod["spec"][list];
    if (!containers.is_array()) {
      if (containers.is_null()) pod["spec"].erase(list);
      continue;
    }
    for (std::size_t i = 0; i < containers.size(); ++i) {
      if (!containers[i].contains("resources") || !containers[i]["resources"].is_object()) continue;
      json& resources = containers[i]["resources"];
      DefaultRequests(resources);
      ValidateResources(resources, "spec." + std::string(list) + "[" + std::to_string(i) + "].resources", errors);
    }
  }
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
