// Values printed the way Go's fmt prints them, so the double's error text matches kube-apiserver's byte
// for byte: %q (strconv.Quote), %v of a float64, and %#v of the decoded JSON (map[string]interface {}).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gangplank::apiserver_double::schema {

// strconv.Quote: double quotes, Go escapes for control bytes and invalid UTF-8.
std::string go_quote(const std::string& text);
// fmt "%v" of a float64: shortest digits, exponent form below 1e-4 and from 1e21 up ("1e+21").
std::string go_float(double value);
// fmt "%v" of a JSON scalar as Go decodes it (int64, float64, bool); strings unquoted.
std::string go_plain(const nlohmann::json& value);
// fmt "%#v" of a decoded JSON value: "a" quoted, map[string]interface {}{"k":1}, []interface {}{...}.
std::string go_syntax(const nlohmann::json& value);

}  // namespace gangplank::apiserver_double::schema
