#include "apiserver-double/schema/defaulting.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

void ApplyDefaults(json& value, const Schema& schema) {
  if (value.is_array()) {
    if (schema.items) {
      for (auto& item : value) ApplyDefaults(item, *schema.items);
    }
    return;
  }
  if (!value.is_object()) return;
  for (const auto& [name, prop] : schema.properties) {
    if (!prop->default_value) continue;
    auto it = value.find(name);
    if (it == value.end() || (it->is_null() && !prop->nullable)) value[name] = *prop->default_value;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (const Schema* prop = schema.property(it.key())) {
      ApplyDefaults(it.value(), *prop);
    } else if (schema.additional_properties) {
      ApplyDefaults(it.value(), *schema.additional_properties);
    }
  }
}

}  // namespace gangplank::apiserver_double::schema
