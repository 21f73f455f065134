// The structural-schema rules apiextensions.k8s.io/v1 enforces when a CRD is written: every node that
// can hold a value names its type (x-kubernetes-int-or-string, x-kubernetes-embedded-resource and, for
// object fields, x-kubernetes-preserve-unknown-fields excepted), the root is an object, and an object
// has either properties or additionalProperties.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "apiserver-double/schema/field_error.h"

namespace gangplank::apiserver_double::schema {

// `path` names the schema in the CRD ("spec.versions[0].schema.openAPIV3Schema").
void CheckStructural(const nlohmann::json& open_api_v3_schema, const std::string& path, FieldErrors& errors);

}  // namespace gangplank::apiserver_double::schema
