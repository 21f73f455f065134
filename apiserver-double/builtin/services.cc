// core/v1 Services: ClusterIP allocation from the service CIDR 10.96.0.0/12 (10.96.0.1 is the
// kubernetes Service's) the way the registry allocates it, the defaults of pkg/apis/core/v1/defaults.go
// (type, sessionAffinity, port protocol and targetPort, ipFamilies), the allocated IP kept on updates
// that omit it (the REST strategy's patchAllocatedValues) and refused when changed, and the port rules
// of pkg/apis/core/validation ValidateService.
#include <set>
#include <string>

#include "apiserver-double/builtin/builtin_admission.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

std::string ClusterIpOf(const json& service) {
  const json::json_pointer p("/spec/clusterIP");
  return service.contains(p) && service[p].is_string() ? service[p].get<std::string>() : "";
}

// The lowest free address of 10.96.0.0/12 above 10.96.0.1.
std::string Allocate(const std::vector<ObjectPtr>& services, const std::string& self_key) {
  std::set<std::string> used{"10.96.0.1"};
  for (const auto& svc : services) {
    const std::string key = svc->value("/metadata/namespace"_json_pointer, std::string()) + "/" +
                            svc->value("/metadata/name"_json_pointer, std::string());
    if (key != self_key) used.insert(ClusterIpOf(*svc));
  }
  for (unsigned n = 2; n < (1u << 20) - 1; ++n) {
    const std::string ip = "10." + std::to_string(96 + (n >> 16)) + "." + std::to_string((n >> 8) & 255) + "." + std::to_string(n & 255);
    if (!used.count(ip)) return ip;
  }
  return "";
}

}  // namespace

s::FieldErrors AdmitService(json& service, const json* old, const std::vector<ObjectPtr>& services) {
  json& spec = service["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("type")) spec["type"] = "ClusterIP";
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  const std::string type = spec.value("type", "ClusterIP");
  s::FieldErrors errors;
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName") {
    errors.push_back(s::NotSupported("spec.type", type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
    return errors;
  }
  const std::string affinity = spec.value("sessionAffinity", "None");
  if (affinity != "None" && affinity != "ClientIP") {
    errors.push_back(s::NotSupported("spec.sessionAffinity", affinity, {"ClientIP", "None"}));
  }
  if (type != "ExternalName") {
    // Updates that leave the address out keep the allocated one; a different one is refused.
    if (old != nullptr && !ClusterIpOf(*old).empty()) {
      if (ClusterIpOf(service).empty()) {
        spec["clusterIP"] = (*old)["spec"]["clusterIP"];
        spec["clusterIPs"] = json::array({(*old)["spec"]["clusterIP"]});
      } else if (ClusterIpOf(service) != ClusterIpOf(*old)) {
        errors.push_back(s::Invalid("spec.clusterIPs[0]", json::array({ClusterIpOf(service)}), "may not change once set"));
      }
    } else if (ClusterIpOf(service).empty()) {
      const std::string key = service.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
                              service.value("/metadata/name"_json_pointer, std::string());
      spec["clusterIP"] = Allocate(services, key);
      spec["clusterIPs"] = json::array({spec["clusterIP"]});
    } else if (ClusterIpOf(service) != "None") {
      for (const auto& other : services) {
        if (ClusterIpOf(*other) == ClusterIpOf(service) &&
            other->value("/metadata/name"_json_pointer, std::string()) != service.value("/metadata/name"_json_pointer, std::string())) {
          errors.push_back(s::Invalid("spec.clusterIPs", json::array({ClusterIpOf(service)}),
                                      "failed to allocate IP " + ClusterIpOf(service) + ": provided IP is already allocated"));
        }
      }
      spec["clusterIPs"] = json::array({spec["clusterIP"]});
    }
    if (!spec.contains("ipFamilies")) spec["ipFamilies"] = json::array({"IPv4"});
    if (!spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";
    if (!spec.contains("internalTrafficPolicy")) spec["internalTrafficPolicy"] = "Cluster";
  }
  const bool headless = ClusterIpOf(service) == "None";
  json& ports = spec["ports"];
  if (!ports.is_array()) ports = json::array();
  if (ports.empty() && !headless && type != "ExternalName") errors.push_back(s::Required("spec.ports"));
  std::set<std::string> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    json& port = ports[i];
    const std::string path = "spec.ports[" + std::to_string(i) + "]";
    if (!port.contains("protocol")) port["protocol"] = "TCP";
    if (!port.contains("targetPort") && port.contains("port")) port["targetPort"] = port["port"];
    const std::string name = port.value("name", "");
    if (ports.size() > 1 && name.empty()) errors.push_back(s::Required(path + ".name"));
    if (!name.empty() && !names.insert(name).second) errors.push_back(s::Duplicate(path + ".name", name));
    const json number = port.contains("port") ? port["port"] : json(0);
    if (!number.is_number_integer() || number.get<long long>() < 1 || number.get<long long>() > 65535) {
      errors.push_back(s::Invalid(path + ".port", number, "must be between 1 and 65535, inclusive"));
    }
    const std::string protocol = port.value("protocol", "TCP");
    if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP") {
      errors.push_back(s::NotSupported(path + ".protocol", protocol, {"SCTP", "TCP", "UDP"}));
    }
  }
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
