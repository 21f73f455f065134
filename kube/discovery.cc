#include "kube/discovery.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>

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

std::optional<bool> AskUntilTold(RestClient& client, const ResourceDescriptor& resource, const std::atomic<bool>& stopping,
                                 const std::function<void(const std::string& error)>& cannot_tell) {
  while (!stopping) {
    try {
      return ServesResource(client, resource);
    } catch (const std::exception& e) {
      cannot_tell(e.what());
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return std::nullopt;
}

}  // namespace gangplank::kube
