#include "kube/discovery.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "kube/api_error.h"

namespace gangplank::kube {

bool ServesResource(RestClient& client, const ResourceDescriptor& resource) {
  RestRequest request;
  request.path = resource.group.empty() ? "/api/" + resource.version : "/apis/" + resource.ApiVersion();
  nlohmann::json list;
  try {
    list = nlohmann::json::parse(client.Execute(request).body);
  } catch (const NotFoundError&) {
    return false;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("unreadable discovery answer from " + request.path + ": " + e.what());
  }
  if (!list.is_object() || !list.contains("resources") || !list["resources"].is_array()) {
    throw std::runtime_error("discovery answer from " + request.path + " has no resources list");
  }
  for (const auto& r : list["resources"]) {
    if (r.is_object() && r.value("name", "") == resource.plural) return true;
  }
  return false;
}

}  // namespace gangplank::kube
