// Pruning as kube-apiserver decodes a custom resource: fields the schema does not declare are dropped
// (kept under x-kubernetes-preserve-unknown-fields; apiVersion, kind and metadata always kept at the root
// and in embedded resources, metadata reduced to ObjectMeta's fields), and non-nullable nulls without a
// default are removed. The dropped paths are what fieldValidation=Strict/Warn report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

// Returns the dropped fields' paths ("spec.foo", "spec.queues[0].bar", "metadata.junk"), sorted.
std::vector<std::string> PruneUnknownFields(nlohmann::json& object, const Schema& root);

// Whether metadata may carry `key` (ObjectMeta's JSON fields); anything else is pruned from metadata.
bool IsObjectMetaField(const std::string& key);

// structuraldefaulting.PruneNonNullableNullsWithoutDefaults.
void PruneNonNullableNulls(nlohmann::json& value, const Schema& schema);

}  // namespace gangplank::apiserver_double::schema
