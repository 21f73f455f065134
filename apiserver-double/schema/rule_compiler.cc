#include "apiserver-double/schema/rule_compiler.h"

#include "apiserver-double/cel/checker.h"
#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::schema {
namespace {

// %#v of apiextensions.ValidationRule (pointer fields print as typed nils, or a placeholder address).
std::string RuleStruct(const ValidationRule& r) {
  const std::string reason = r.reason.empty() ? "(*apiextensions.FieldValueErrorReason)(nil)"
                                              : "(*apiextensions.FieldValueErrorReason)(0xc000000000)";
  return "apiextensions.ValidationRule{Rule:" + GoQuote(r.rule) + ", Message:" + GoQuote(r.message) +
         ", MessageExpression:" + GoQuote(r.message_expression) + ", Reason:" + reason +
         ", FieldPath:" + GoQuote(r.field_path) + ", OptionalOldSelf:(*bool)(nil)}";
}

// ".a.b" or ".a['b.c']" to "a.b" / "a.b.c", checked against the schema; empty string + error on failure.
std::string NormalizeFieldPath(const std::string& fp, const Schema* s, std::string& error) {
  std::string out;
  std::size_t i = 0;
  while (i < fp.size()) {
    std::string name;
    if (fp[i] == '.') {
      const std::size_t end = fp.find_first_of(".[", i + 1);
      name = fp.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      i = end == std::string::npos ? fp.size() : end;
    } else if (fp.compare(i, 2, "['") == 0) {
      const std::size_t end = fp.find("']", i + 2);
      if (end == std::string::npos) {
        error = "unexpected end of JSON path";
        return "";
      }
      name = fp.substr(i + 2, end - i - 2);
      i = end + 2;
    } else {
      error = "expected [ or . but got: " + fp.substr(i, 1);
      return "";
    }
    const Schema* next = s == nullptr ? nullptr : (s->additional_properties ? s->additional_properties.get() : s->property(name));
    if (next == nullptr) {
      error = "does not refer to a valid field";
      return "";
    }
    s = next;
    out += (out.empty() ? "" : ".") + name;
  }
  return out;
}

void CompileRule(ValidationRule& rule, const Schema& node, bool root, const std::string& at, FieldErrors& errors) {
  if (rule.rule.empty()) {
    errors.push_back(Required(at + ".rule", "rule is not specified"));
    return;
  }
  cel::Compiled compiled = cel::Compile(rule.rule, &node, root);
  if (!compiled.errors.empty()) {
    FieldError e = Invalid(at + ".rule", nullptr, compiled.errors);
    e.value_text = RuleStruct(rule);
    errors.push_back(std::move(e));
    return;
  }
  rule.program = compiled.program;
  rule.uses_old_self = compiled.uses_old_self;
  if (!rule.message_expression.empty()) {
    cel::Compiled message = cel::Compile(rule.message_expression, &node, root, cel::ResultType::kString);
    if (!message.errors.empty()) {
      FieldError e = Invalid(at + ".messageExpression", nullptr, "messageExpression " + message.errors);
      e.value_text = RuleStruct(rule);
      errors.push_back(std::move(e));
    }
    rule.message_program = message.program;
  }
  if (!rule.field_path.empty()) {
    std::string error;
    rule.normalized_field_path = NormalizeFieldPath(rule.field_path, &node, error);
    if (!error.empty()) errors.push_back(Invalid(at + ".fieldPath", rule.field_path, "fieldPath must be a valid path: " + error));
  }
}

void Walk(Schema& node, const std::string& path, bool root, FieldErrors& errors) {
  for (std::size_t i = 0; i < node.rules.size(); ++i) {
    CompileRule(node.rules[i], node, root, path + ".x-kubernetes-validations[" + std::to_string(i) + "]", errors);
  }
  for (auto& [name, prop] : node.properties) Walk(*prop, path + ".properties[" + name + "]", false, errors);
  if (node.items) Walk(*node.items, path + ".items", false, errors);
  if (node.additional_properties) Walk(*node.additional_properties, path + ".additionalProperties", false, errors);
}

}  // namespace

void CompileRules(Schema& root, const std::string& path, FieldErrors& errors) { Walk(root, path, true, errors); }

}  // namespace gangplank::apiserver_double::schema
