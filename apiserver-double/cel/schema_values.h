// The CEL view of a custom resource's JSON under its CRD schema, as kube-apiserver builds it for
// x-kubernetes-validations rules: integer -> int, number -> double, only declared properties of an object
// visible, each under its CEL-escaped name ("x-y" is self.x__dash__y, "in" is self.__in__).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cel/value.h"

namespace gangplank::apiserver_double::schema {
struct Schema;
}

namespace gangplank::apiserver_double::cel {

// A null schema converts everything as dynamic values (gangplank::cel::FromJson).
gangplank::cel::Value from_json(const nlohmann::json& value, const schema::Schema* schema);

// A property name as CEL spells it (apiserver's Escape); nullopt when CEL cannot name it (a leading
// digit, a character other than letters, digits, '_', '.', '-', '/'), and the property is then invisible.
std::optional<std::string> EscapeProperty(const std::string& property);
// The property a CEL field name stands for: "x__dash__y" is "x-y", "__namespace__" is "namespace".
std::string UnescapeProperty(const std::string& cel_name);

}  // namespace gangplank::apiserver_double::cel
