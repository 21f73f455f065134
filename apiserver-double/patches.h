// The PATCH flavours the apiserver accepts: RFC 7386 JSON merge patch, RFC 6902 JSON patch, and the
// strategic merge patch kubectl sends for built-in types (merge keys for the lists that have one,
// $patch/$retainKeys/$setElementOrder/$deleteFromPrimitiveList directives).
#pragma once

#include <nlohmann/json.hpp>

namespace gangplank::apiserver_double {

// Each throws ApiError (400 for malformed patches, 422 for a failed JSON patch "test").
nlohmann::json ApplyMergePatch(const nlohmann::json& target, const nlohmann::json& patch);
nlohmann::json ApplyJsonPatch(const nlohmann::json& target, const nlohmann::json& patch);
nlohmann::json ApplyStrategicMergePatch(const nlohmann::json& target, const nlohmann::json& patch);

}  // namespace gangplank::apiserver_double
