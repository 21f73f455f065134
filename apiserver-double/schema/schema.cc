#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

template <class T>
std::optional<T> number(const json& node, const char* key) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

std::string text(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_boolean() && it->get<bool>();
}

std::vector<Schema> ParseAll(const json& node, const char* key) {
  std::vector<Schema> out;
  auto it = node.find(key);
  if (it == node.end() || !it->is_array()) return out;
  for (const auto& item : *it) out.push_back(Schema::Parse(item));
  return out;
}

std::unique_ptr<Schema> ParseChild(const json& node, const char* key) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_object()) return nullptr;
  return std::make_unique<Schema>(Schema::Parse(*it));
}

std::vector<ValidationRule> ParseRules(const json& node) {
  std::vector<ValidationRule> rules;
  auto it = node.find("x-kubernetes-validations");
  if (it == node.end() || !it->is_array()) return rules;
  for (const auto& r : *it) {
    ValidationRule rule;
    rule.rule = text(r, "rule");
    rule.message = text(r, "message");
    rule.message_expression = text(r, "messageExpression");
    rule.reason = text(r, "reason");
    rule.field_path = text(r, "fieldPath");
    rules.push_back(std::move(rule));
  }
  return rules;
}

void ParseStrings(const json& node, const char* key, std::vector<std::string>& out) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_array()) return;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
}

void ParsePattern(const json& node, Schema& s) {
  s.pattern = text(node, "pattern");
  if (s.pattern->empty()) {
    s.pattern.reset();
    return;
  }
  try {
    s.pattern_regex = std::make_shared<const std::regex>(*s.pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    s.pattern_regex = nullptr;
  }
}

}  // namespace

Schema Schema::Parse(const json& node) {
  Schema s;
  if (!node.is_object()) return s;
  s.type = text(node, "type");
  s.format = text(node, "format");
  s.nullable = flag(node, "nullable");
  s.int_or_string = flag(node, "x-kubernetes-int-or-string");
  s.preserve_unknown_fields = flag(node, "x-kubernetes-preserve-unknown-fields");
  s.embedded_resource = flag(node, "x-kubernetes-embedded-resource");
  if (auto it = node.find("properties"); it != node.end() && it->is_object()) {
    for (auto p = it->begin(); p != it->end(); ++p) s.properties[p.key()] = std::make_unique<Schema>(Parse(p.value()));
  }
  s.additional_properties = ParseChild(node, "additionalProperties");
  s.items = ParseChild(node, "items");
  ParseStrings(node, "required", s.required);
  if (auto it = node.find("enum"); it != node.end() && it->is_array()) s.enum_values = *it;
  if (auto it = node.find("default"); it != node.end()) s.default_value = *it;
  s.minimum = number<double>(node, "minimum");
  s.maximum = number<double>(node, "maximum");
  s.multiple_of = number<double>(node, "multipleOf");
  s.exclusive_minimum = flag(node, "exclusiveMinimum");
  s.exclusive_maximum = flag(node, "exclusiveMaximum");
  s.min_length = number<int64_t>(node, "minLength");
  s.max_length = number<int64_t>(node, "maxLength");
  s.min_items = number<int64_t>(node, "minItems");
  s.max_items = number<int64_t>(node, "maxItems");
  s.min_properties = number<int64_t>(node, "minProperties");
  s.max_properties = number<int64_t>(node, "maxProperties");
  ParsePattern(node, s);
  s.list_type = text(node, "x-kubernetes-list-type");
  ParseStrings(node, "x-kubernetes-list-map-keys", s.list_map_keys);
  s.all_of = ParseAll(node, "allOf");
  s.any_of = ParseAll(node, "anyOf");
  s.one_of = ParseAll(node, "oneOf");
  s.not_schema = ParseChild(node, "not");
  s.rules = ParseRules(node);
  return s;
}

std::vector<std::string> Schema::types() const {
  if (int_or_string) return {"integer", "string"};
  if (type.empty()) return {};
  return {type};
}

const Schema* Schema::property(const std::string& name) const {
  auto it = properties.find(name);
  return it == properties.end() ? nullptr : it->second.get();
}

}  // namespace gangplank::apiserver_double::schema
