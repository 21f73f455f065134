// Request bodies in Kubernetes' protobuf encoding: kubectl 1.35 sends its typed creates ("kubectl create
// namespace") as application/vnd.kubernetes.protobuf, the "k8s\0"-prefixed runtime.Unknown envelope.
// The double decodes the kinds kubectl's imperative commands the project uses send (Namespace) and
// answers 415 for the rest, so a client can send JSON instead.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gangplank::apiserver_double {

inline constexpr char kProtobufContentType[] = "application/vnd.kubernetes.protobuf";

// The object `body` encodes, as the JSON the double stores; throws ApiError 400 for a malformed body
// and 415 for a kind it does not decode.
nlohmann::json DecodeProtobufObject(const std::string& body);

}  // namespace gangplank::apiserver_double
