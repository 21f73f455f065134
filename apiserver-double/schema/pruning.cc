#include "apiserver-double/schema/pruning.h"

#include <algorithm>
#include <set>

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

const std::set<std::string>& ObjectMetaFields() {
  static const std::set<std::string> fields = {
      "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
      "ownerReferences", "finalizers", "managedFields"};
  return fields;
}

}  // namespace

bool IsObjectMetaField(const std::string& key) { return ObjectMetaFields().count(key) > 0; }

namespace {

std::string JoinKey(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

class Pruner {
 public:
  void value(json& v, const Schema& s, const std::string& path, bool resource_root) {
    if (v.is_array() && s.items) {
      for (std::size_t i = 0; i < v.size(); ++i) value(v[i], *s.items, path + "[" + std::to_string(i) + "]", false);
    } else if (v.is_object()) {
      object(v, s, path, resource_root || s.embedded_resource);
    }
  }

  std::vector<std::string> Take() {
    std::sort(dropped_.begin(), dropped_.end());
    return std::move(dropped_);
  }

 private:
  void object(json& v, const Schema& s, const std::string& path, bool resource_root) {
    std::vector<std::string> unknown;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& key = it.key();
      const std::string child = JoinKey(path, key);
      if (resource_root && key == "metadata" && it.value().is_object()) {
        metadata(it.value(), child);
      } else if (resource_root && (key == "apiVersion" || key == "kind" || key == "metadata")) {
        continue;
      } else if (const Schema* prop = s.property(key)) {
        value(it.value(), *prop, child, false);
      } else if (s.additional_properties) {
        value(it.value(), *s.additional_properties, child, false);
      } else if (!s.preserve_unknown_fields) {
        unknown.push_back(key);
      }
    }
    for (const auto& key : unknown) {
      dropped_.push_back(JoinKey(path, key));
      v.erase(key);
    }
  }

  void metadata(json& meta, const std::string& path) {
    std::vector<std::string> unknown;
    for (auto it = meta.begin(); it != meta.end(); ++it) {
      if (!IsObjectMetaField(it.key())) unknown.push_back(it.key());
    }
    for (const auto& key : unknown) {
      dropped_.push_back(JoinKey(path, key));
      meta.erase(key);
    }
  }

  std::vector<std::string> dropped_;
};

}  // namespace

std::vector<std::string> PruneUnknownFields(json& object, const Schema& root) {
  Pruner pruner;
  pruner.value(object, root, "", true);
  return pruner.Take();
}

void PruneNonNullableNulls(json& value, const Schema& schema) {
  if (value.is_array() && schema.items) {
    for (auto& item : value) PruneNonNullableNulls(item, *schema.items);
    return;
  }
  if (!value.is_object()) return;
  std::vector<std::string> drop;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const Schema* child = schema.property(it.key());
    if (child == nullptr) child = schema.additional_properties.get();
    if (child == nullptr) continue;
    if (it.value().is_null() && !child->nullable && !child->default_value) {
      drop.push_back(it.key());
    } else {
      PruneNonNullableNulls(it.value(), *child);
    }
  }
  for (const auto& key : drop) value.erase(key);
}

}  // namespace gangplank::apiserver_double::schema
