#include "apiserver-double/schema/apply_typing.h"

#include "apiserver-double/schema/pruning.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

// How structured-merge-diff names a list element: by its keys, its value (sets) or its index.
std::string element(const Schema& list, const json& item, std::size_t index) {
  if (list.list_type == "map" && item.is_object()) {
    std::string keys;
    for (const auto& k : list.list_map_keys) {
      if (item.contains(k)) keys += (keys.empty() ? "" : ",") + k + "=" + item[k].dump();
    }
    return "[" + keys + "]";
  }
  if (list.list_type == "set" && !item.is_structured()) return "[=" + item.dump() + "]";
  return "[" + std::to_string(index) + "]";
}

void Walk(const json& v, const Schema& s, const std::string& path, bool resource_root, std::vector<std::string>& out) {
  if (v.is_array() && s.items) {
    for (std::size_t i = 0; i < v.size(); ++i) Walk(v[i], *s.items, path + element(s, v[i], i), false, out);
    return;
  }
  if (!v.is_object()) return;
  const bool root = resource_root || s.embedded_resource;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string child = path + "." + it.key();
    if (root && it.key() == "metadata" && it.value().is_object()) {
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!IsObjectMetaField(m.key())) out.push_back(child + "." + m.key());
      }
    } else if (root && (it.key() == "apiVersion" || it.key() == "kind" || it.key() == "metadata")) {
      continue;
    } else if (const Schema* prop = s.property(it.key())) {
      Walk(it.value(), *prop, child, false, out);
    } else if (s.additional_properties) {
      Walk(it.value(), *s.additional_properties, child, false, out);
    } else if (!s.preserve_unknown_fields) {
      out.push_back(child);
    }
  }
}

}  // namespace

std::vector<std::string> UndeclaredApplyFields(const json& applied, const Schema& root) {
  std::vector<std::string> out;
  Walk(applied, root, "", true, out);
  return out;
}

}  // namespace gangplank::apiserver_double::schema
