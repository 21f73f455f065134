#include "cel/dra_device.h"

#include <algorithm>

namespace gangplank::cel {
namespace {

// "domain/id" split at the first slash; a bare id is in `default_domain`.
std::pair<std::string, std::string> SplitQualifiedName(const std::string& name, const std::string& default_domain) {
  const std::size_t slash = name.find('/');
  if (slash == std::string::npos) return {default_domain, name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

// domain -> (id -> value), answering an unknown domain with an empty map.
Value ByDomain(const std::vector<std::pair<std::string, Value>>& entries, const std::string& driver) {
  std::vector<std::pair<std::string, Map>> domains;
  for (const auto& [name, value] : entries) {
    auto split = SplitQualifiedName(name, driver);
    const std::string& domain = split.first;
    std::string& id = split.second;
    auto it = std::find_if(domains.begin(), domains.end(), [&](const auto& d) { return d.first == domain; });
    if (it == domains.end()) it = domains.emplace(domains.end(), domain, Map{});
    it->second.Set(std::move(id), value);
  }
  Map out;
  for (auto& [domain, ids] : domains) out.entries.emplace_back(std::move(domain), std::move(ids));
  out.absent = Map{};
  return out;
}

}  // namespace

Value DraDeviceValue(const DraDevice& device) {
  std::vector<std::pair<std::string, Value>> capacity;
  capacity.reserve(device.capacity.size());
  for (const auto& [name, quantity] : device.capacity) capacity.emplace_back(name, quantity);
  return Map{{"driver", device.driver},
             {"allowMultipleAllocations", device.allow_multiple_allocations},
             {"attributes", ByDomain(device.attributes, device.driver)},
             {"capacity", ByDomain(capacity, device.driver)}};
}

Activation DraActivation(const DraDevice& device) {
  return Activation(std::string(kDraDeviceVariable), DraDeviceValue(device));
}

CompileOptions DraSelectorOptions() {
  CompileOptions options;
  options.variables = {std::string(kDraDeviceVariable)};
  options.max_source_bytes = kMaxExpressionBytes;
  options.max_steps = kDefaultMaxSteps;
  return options;
}

}  // namespace gangplank::cel
