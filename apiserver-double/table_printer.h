// meta.k8s.io/v1 Table conversion for `kubectl get`: built-in columns for the core kinds, and for
// custom resources the CRD's additionalPrinterColumns evaluated with a small JSONPath subset.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apiserver-double/resource_catalog.h"

namespace gangplank::apiserver_double {

// Evaluates "{.a.b[0].c}", ".a.b", ".conditions[?(@.type=="Ready")].status" against `object`.
// Returns null when the path does not resolve.
nlohmann::json EvaluateJsonPath(const nlohmann::json& object, const std::string& path);

// "5s", "3m", "2d", like kubectl's human-readable durations.
std::string HumanAge(const std::string& rfc3339_timestamp);

// A row's "object" (the includeObject query parameter): none, PartialObjectMetadata (the default), or the
// whole object.
enum class IncludeObject { kNone, kMetadata, kObject };
// Parses includeObject; an unknown value is a 400, as from the kube-apiserver.
IncludeObject IncludeObjectParam(const std::optional<std::string>& value);

nlohmann::json TableColumns(const ResourceType& type);
nlohmann::json TableRow(const ResourceType& type, const nlohmann::json& object, IncludeObject include = IncludeObject::kMetadata);
// A Table holding `objects`; list_metadata carries resourceVersion/continue.
nlohmann::json MakeTable(const ResourceType& type, const std::vector<nlohmann::json>& objects,
                          const nlohmann::json& list_metadata, IncludeObject include = IncludeObject::kMetadata);

}  // namespace gangplank::apiserver_double
