// Server-side apply converts the applied configuration to a typed value against the CRD schema before
// merging; a field the schema does not declare fails that conversion. This lists those fields in
// structured-merge-diff's path notation: `.spec.x`, list-map items `[name="a"]`, set items `[=v]`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

std::vector<std::string> UndeclaredApplyFields(const nlohmann::json& applied, const Schema& root);

}  // namespace gangplank::apiserver_double::schema
