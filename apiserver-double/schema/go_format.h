// Values printed the way Go prints them, so the double's error text matches kube-apiserver's byte for
// byte: %q (strconv.Quote), %v of a float64, %#v of the decoded JSON (map[string]interface {}), and
// encoding/json's Marshal of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace gangplank::apiserver_double::schema {

// strconv.Quote: double quotes, Go escapes for control bytes and invalid UTF-8.
std::string GoQuote(const std::string& text);
// fmt "%v" of a float64: shortest digits, exponent form below 1e-4 and from 1e21 up ("1e+21").
std::string GoFloat(double value);
// fmt "%v" of a JSON scalar as Go decodes it (int64, float64, bool); strings unquoted.
std::string GoPlain(const nlohmann::json& value);
// fmt "%#v" of a decoded JSON value: "a" quoted, map[string]interface {}{"k":1}, []interface {}{...}.
std::string GoSyntax(const nlohmann::json& value);
// encoding/json Marshal of a decoded JSON value: compact, keys sorted, <, > and & escaped as \u003c...,
// floats in 'f' form between 1e-6 and 1e21 ("0.00001", "1e+21", "1e-7"), null as null.
std::string GoJson(const nlohmann::json& value);

}  // namespace gangplank::apiserver_double::schema
