// OpenAPI v3 schema validation of a custom resource as kube-apiserver runs it (kube-openapi's
// SchemaValidator, then apiextensions' conversion of each failure to a field.Error), including CRD
// validation ratcheting: on update, a subtree equal to its correlated old value reports nothing.
#pragma once

#include <nlohmann/json.hpp>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

// `old` is the stored object on update, null on create.
FieldErrors ValidateStructure(const Schema& root, const nlohmann::json& object, const nlohmann::json* old);

// The old list item correlated with `item` (same list-map keys, or an equal set member), or null.
const nlohmann::json* CorrelatedItem(const Schema& list, const nlohmann::json& item, const nlohmann::json* old_list);

// Whether a JSON number is integral (kube-openapi accepts 2.0 where an integer is expected).
bool IsIntegral(const nlohmann::json& number);

}  // namespace gangplank::apiserver_double::schema
