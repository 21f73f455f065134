#include "apiserver-double/schema/custom_resource_schema.h"

#include <cmath>
#include <regex>

#include "apiserver-double/schema/cel_validation.h"
#include "apiserver-double/schema/defaulting.h"
#include "apiserver-double/schema/list_type_validation.h"
#include "apiserver-double/schema/pruning.h"
#include "apiserver-double/schema/rule_compiler.h"
#include "apiserver-double/schema/structural_schema_check.h"
#include "apiserver-double/schema/structural_validation.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

void IntegralNumbersAsIntegers(json& value) {
  if (value.is_number_float() && IsIntegral(value) && std::fabs(value.get<double>()) < 9.2e18) {
    value = static_cast<int64_t>(value.get<double>());
  } else if (value.is_structured()) {
    for (auto& child : value) IntegralNumbersAsIntegers(child);
  }
}

// ValidateObjectMetaAccessor's name check for custom resources (DNS-1123 subdomain).
void ValidateName(const json& object, FieldErrors& errors) {
  const json* name = object.contains("metadata") && object["metadata"].is_object() && object["metadata"].contains("name")
                         ? &object["metadata"]["name"] : nullptr;
  if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) return;
  static const std::regex subdomain(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  const std::string& text = name->get_ref<const std::string&>();
  if (text.size() > 253) errors.push_back(Invalid("metadata.name", text, "must be no more than 253 characters"));
  if (!std::regex_match(text, subdomain)) {
    errors.push_back(Invalid("metadata.name", text,
                             "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                             "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
  }
}

// Schema failures that keep the CEL rules from running (apiextensions' hasBlockingErr).
bool BlocksRules(const FieldErrors& errors) {
  for (const auto& e : errors) {
    switch (e.type) {
      case ErrorType::kNotSupported:
      case ErrorType::kRequired:
      case ErrorType::kTooLong:
      case ErrorType::kTooMany:
      case ErrorType::kTypeInvalid: return true;
      default: break;
    }
  }
  return false;
}

bool has_rules(const Schema& s) {
  if (!s.rules.empty()) return true;
  for (const auto& [name, prop] : s.properties) {
    if (has_rules(*prop)) return true;
  }
  return (s.items && has_rules(*s.items)) || (s.additional_properties && has_rules(*s.additional_properties));
}

}  // namespace

CustomResourceSchema::CustomResourceSchema(Schema root) : root_(std::move(root)), has_rules_(has_rules(root_)) {}

std::shared_ptr<const CustomResourceSchema> CustomResourceSchema::Compile(const json& open_api_v3_schema,
                                                                          const std::string& path, FieldErrors& errors) {
  CheckStructural(open_api_v3_schema, path, errors);
  Schema root = Schema::Parse(open_api_v3_schema);
  CompileRules(root, path, errors);
  return std::shared_ptr<const CustomResourceSchema>(new CustomResourceSchema(std::move(root)));
}

std::vector<std::string> CustomResourceSchema::Decode(json& object) const {
  std::vector<std::string> unknown = PruneUnknownFields(object, root_);
  IntegralNumbersAsIntegers(object);
  PruneNonNullableNulls(object, root_);
  ApplyDefaults(object, root_);
  return unknown;
}

void CustomResourceSchema::DefaultStored(json& object) const { ApplyDefaults(object, root_); }

CustomResourceSchema::Outcome CustomResourceSchema::Validate(const json& object, const json* old) const {
  Outcome out;
  ValidateName(object, out.errors);
  for (auto& e : ValidateStructure(root_, object, old)) out.errors.push_back(std::move(e));
  for (auto& e : ValidateListTypes(root_, object)) out.errors.push_back(std::move(e));
  if (!has_rules_) return out;
  if (BlocksRules(out.errors)) {
    out.errors.push_back(Invalid("<nil>", nullptr, "some validation rules were not checked because the object was invalid; "
                                                   "correct the existing errors to complete validation"));
    return out;
  }
  RuleOutcome rules = ValidateRules(root_, object, old);
  for (auto& e : rules.errors) out.errors.push_back(std::move(e));
  out.warnings = std::move(rules.warnings);
  return out;
}

}  // namespace gangplank::apiserver_double::schema
