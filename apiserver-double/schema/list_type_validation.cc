#include "apiserver-double/schema/list_type_validation.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

json key_fields(const json& item, const std::vector<std::string>& keys) {
  json out = json::object();
  for (const auto& k : keys) {
    if (item.is_object() && item.contains(k)) out[k] = item[k];
  }
  return out;
}

void check_list(const Schema& s, const json& list, const std::string& path, FieldErrors& out) {
  if (s.list_type != "set" && s.list_type != "map") return;
  for (std::size_t i = 1; i < list.size(); ++i) {
    const json identity = s.list_type == "set" ? list[i] : key_fields(list[i], s.list_map_keys);
    for (std::size_t j = 0; j < i; ++j) {
      const json other = s.list_type == "set" ? list[j] : key_fields(list[j], s.list_map_keys);
      if (identity == other) {
        out.push_back(duplicate(index_path(path, i), identity));
        break;
      }
    }
  }
}

void walk(const Schema& s, const json& value, const std::string& path, FieldErrors& out) {
  if (value.is_array()) {
    check_list(s, value, path, out);
    if (s.items) {
      for (std::size_t i = 0; i < value.size(); ++i) walk(*s.items, value[i], index_path(path, i), out);
    }
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (const Schema* prop = s.property(it.key())) {
        walk(*prop, it.value(), child_path(path, it.key()), out);
      } else if (s.additional_properties) {
        walk(*s.additional_properties, it.value(), key_path(path, it.key()), out);
      }
    }
  }
}

}  // namespace

std::string child_path(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }
std::string index_path(const std::string& path, std::size_t index) { return path + "[" + std::to_string(index) + "]"; }
std::string key_path(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }

FieldErrors validate_list_types(const Schema& root, const json& object) {
  FieldErrors out;
  walk(root, object, "", out);
  return out;
}

}  // namespace gangplank::apiserver_double::schema
