// The x-kubernetes-list-type invariants kube-apiserver checks after schema validation (structurallisttype):
// a "set" holds no value twice, a "map" no two items with the same list-map keys. Duplicates are reported
// at the later item as `Duplicate value`, the value being the item (set) or its key fields (map).
#pragma once

#include <nlohmann/json.hpp>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

FieldErrors ValidateListTypes(const Schema& root, const nlohmann::json& object);

// field.Path notation: child "a.b", index "a[0]", map key "a[key]".
std::string ChildPath(const std::string& path, const std::string& name);
std::string IndexPath(const std::string& path, std::size_t index);
std::string KeyPath(const std::string& path, const std::string& key);

}  // namespace gangplank::apiserver_double::schema
