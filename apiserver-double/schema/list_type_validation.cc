#include "apiserver-double/schema/list_type_validation.h"

#include <algorithm>

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

json KeyFields(const json& item, const std::vector<std::string>& keys) {
  json out = json::object();
  for (const auto& k : keys) {
    if (item.is_object() && item.contains(k)) out[k] = item[k];
  }
  return out;
}

// Reports the second appearance of each repeated identity only, as structurallisttype does.
void CheckList(const Schema& s, const json& list, const std::string& path, FieldErrors& out) {
  if (s.list_type != "set" && s.list_type != "map") return;
  if (s.list_type == "map") {
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object() && !list[i].is_null()) {
        out.push_back(Invalid(IndexPath(path, i), list[i], "must be an object for an array of list-type map"));
        return;
      }
    }
  }
  std::vector<json> seen;
  std::vector<int> times;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json identity = s.list_type == "set" ? list[i] : KeyFields(list[i], s.list_map_keys);
    auto it = std::find(seen.begin(), seen.end(), identity);
    if (it == seen.end()) {
      seen.push_back(identity);
      times.push_back(1);
    } else if (times[static_cast<std::size_t>(it - seen.begin())]++ == 1) {
      out.push_back(Duplicate(IndexPath(path, i), identity));
    }
  }
}

void Walk(const Schema& s, const json& value, const std::string& path, FieldErrors& out) {
  if (value.is_array()) {
    CheckList(s, value, path, out);
    if (s.items) {
      for (std::size_t i = 0; i < value.size(); ++i) Walk(*s.items, value[i], IndexPath(path, i), out);
    }
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (const Schema* prop = s.property(it.key())) {
        Walk(*prop, it.value(), ChildPath(path, it.key()), out);
      } else if (s.additional_properties) {
        Walk(*s.additional_properties, it.value(), KeyPath(path, it.key()), out);
      }
    }
  }
}

}  // namespace

std::string ChildPath(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }
std::string IndexPath(const std::string& path, std::size_t index) { return path + "[" + std::to_string(index) + "]"; }
std::string KeyPath(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }

FieldErrors ValidateListTypes(const Schema& root, const json& object) {
  FieldErrors out;
  Walk(root, object, "", out);
  return out;
}

}  // namespace gangplank::apiserver_double::schema
