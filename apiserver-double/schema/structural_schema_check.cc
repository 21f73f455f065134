#include "apiserver-double/schema/structural_schema_check.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

enum class Level { kRoot, kItem, kField };

bool flag(const json& node, const char* key) { return node.value(key, false); }

void CheckType(const json& node, const std::string& path, Level level, FieldErrors& errors) {
  const std::string type = node.value("type", std::string());
  if (level == Level::kRoot && !type.empty() && type != "object") {
    errors.push_back(Invalid(path + ".type", type, "must be object at the root"));
  }
  if (!type.empty() || flag(node, "x-kubernetes-embedded-resource") || flag(node, "x-kubernetes-int-or-string")) return;
  if (level == Level::kRoot) errors.push_back(Required(path + ".type", "must not be empty at the root"));
  if (level == Level::kItem) errors.push_back(Required(path + ".type", "must not be empty for specified array items"));
  if (level == Level::kField && !flag(node, "x-kubernetes-preserve-unknown-fields")) {
    errors.push_back(Required(path + ".type", "must not be empty for specified object fields"));
  }
}

void Walk(const json& node, const std::string& path, Level level, FieldErrors& errors) {
  if (!node.is_object()) return;
  CheckType(node, path, level, errors);
  const bool has_properties = node.contains("properties") && node["properties"].is_object();
  if (has_properties) {
    for (auto it = node["properties"].begin(); it != node["properties"].end(); ++it) {
      Walk(it.value(), path + ".properties[" + it.key() + "]", Level::kField, errors);
    }
  }
  if (node.contains("additionalProperties") && node["additionalProperties"].is_object()) {
    if (has_properties) {
      errors.push_back(Forbidden(path + ".additionalProperties", "additionalProperties and properties are mutual exclusive"));
    }
    Walk(node["additionalProperties"], path + ".additionalProperties", Level::kField, errors);
  }
  if (node.contains("items")) Walk(node["items"], path + ".items", Level::kItem, errors);
}

}  // namespace

void CheckStructural(const json& open_api_v3_schema, const std::string& path, FieldErrors& errors) {
  Walk(open_api_v3_schema, path, Level::kRoot, errors);
}

}  // namespace gangplank::apiserver_double::schema
