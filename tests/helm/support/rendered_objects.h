// The objects a `helm template` run produced, parsed, and the lookups the chart tests share.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gangplank::helm_testing {

using nlohmann::json;

class RenderedObjects {
 public:
  // Every non-empty YAML document of `yaml`; a parse error is a test failure (and an empty set).
  explicit RenderedObjects(const std::string& yaml);

  const std::vector<json>& all() const { return objects_; }
  std::vector<json> of_kind(const std::string& kind) const;
  // The object of `kind` named `name`; nullopt when absent.
  std::optional<json> find(const std::string& kind, const std::string& name) const;
  // Like find, but a missing object is a test failure (and an empty object).
  json get(const std::string& kind, const std::string& name) const;
  // The Deployment whose pod template has a container named `container` (nullopt if none).
  std::optional<json> deployment_with_container(const std::string& container) const;

 private:
  std::vector<json> objects_;
};

// A container of a pod spec by name (an empty object when absent).
json container_named(const json& pod_spec, const std::string& name);
// "--flag=value" arguments as flag -> values (repeated flags keep every value); "--flag" alone -> "".
std::multimap<std::string, std::string> parse_args(const json& container);
// The single value of a flag ("" when absent).
std::string arg_value(const json& container, const std::string& flag);
bool has_flag(const json& container, const std::string& flag);

}  // namespace gangplank::helm_testing
