// A CRD version's openAPIV3Schema parsed once into a tree the validator, pruner, defaulter and the CEL
// rules walk, instead of re-reading the JSON for every request.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace gangplank::cel {
struct Expr;
}

namespace gangplank::apiserver_double::schema {

// One x-kubernetes-validations entry with its compiled programs (set by compile_rules()).
struct ValidationRule {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::string reason;      // "", FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate
  std::string field_path;  // as written, e.g. ".spec.limit"
  std::string normalized_field_path;  // "spec.limit"
  std::shared_ptr<const gangplank::cel::Expr> program;
  std::shared_ptr<const gangplank::cel::Expr> message_program;
  bool uses_old_self = false;
};

struct Schema {
  std::string type;  // "" when not set
  std::string format;
  bool nullable = false;
  bool int_or_string = false;
  bool preserve_unknown_fields = false;
  bool embedded_resource = false;
  std::map<std::string, std::unique_ptr<Schema>> properties;
  std::unique_ptr<Schema> additional_properties;  // the schema form
  std::unique_ptr<Schema> items;
  std::vector<std::string> required;
  std::optional<nlohmann::json> enum_values;  // an array
  std::optional<nlohmann::json> default_value;
  std::optional<double> minimum, maximum, multiple_of;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<int64_t> min_length, max_length, min_items, max_items, min_properties, max_properties;
  std::optional<std::string> pattern;
  std::shared_ptr<const std::regex> pattern_regex;  // null when the pattern does not compile
  std::string list_type;  // "", atomic, set, map
  std::vector<std::string> list_map_keys;
  std::vector<Schema> all_of, any_of, one_of;
  std::unique_ptr<Schema> not_schema;
  std::vector<ValidationRule> rules;

  static Schema Parse(const nlohmann::json& node);
  // The type list kube-openapi checks: x-kubernetes-int-or-string is "integer,string".
  std::vector<std::string> types() const;
  const Schema* property(const std::string& name) const;
};

}  // namespace gangplank::apiserver_double::schema
