// Defaulting of a custom resource from its schema's `default:` values, as kube-apiserver applies it
// when it decodes a request and whenever it reads an object from storage: an absent property, or a
// null one that is not nullable, gets a copy of its default; then defaulting descends into every
// property, map value and list item.
#pragma once

#include <nlohmann/json.hpp>

#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

void ApplyDefaults(nlohmann::json& value, const Schema& schema);

}  // namespace gangplank::apiserver_double::schema
