#include "apiserver-double/schema/cel_validation.h"

#include "apiserver-double/cel/schema_values.h"
#include "apiserver-double/cel/self_activation.h"
#include "apiserver-double/schema/list_type_validation.h"
#include "apiserver-double/schema/structural_validation.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t\n\r") - b + 1);
}

std::string RuleText(const ValidationRule& r) { return r.message.empty() ? trimmed(r.rule) : trimmed(r.message); }

// The CEL view of the resource root: declared properties plus apiVersion, kind, metadata.name/generateName.
cel::Value RootValue(const json& object, const Schema& s) {
  cel::Value v = cel::from_json(object, &s);
  cel::Map m = v.map();
  for (const char* key : {"apiVersion", "kind"}) {
    if (object.contains(key) && !s.property(key)) m.entries.emplace_back(std::string(key), cel::from_json(object[key], nullptr));
  }
  if (object.contains("metadata") && object["metadata"].is_object()) {
    cel::Map meta;
    for (const char* key : {"name", "generateName"}) {
      if (object["metadata"].contains(key)) meta.entries.emplace_back(std::string(key), cel::from_json(object["metadata"][key], nullptr));
    }
    std::erase_if(m.entries, [](const auto& e) { return e.first.template is<std::string>() && e.first.str() == "metadata"; });
    m.entries.emplace_back(std::string("metadata"), cel::Value(std::move(meta)));
  }
  return m;
}

class RuleRunner {
 public:
  explicit RuleRunner(RuleOutcome& out) : out_(out) {}

  void Walk(const Schema& s, const json& value, const json* old, const std::string& path, bool root) {
    if (value.is_null()) return;  // rules only see non-null values
    if (!s.rules.empty()) RunRules(s, value, old, path, root);
    if (value.is_object()) {
      auto old_child = [&](const std::string& key) -> const json* {
        if (old == nullptr || !old->is_object() || !old->contains(key)) return nullptr;
        return &(*old)[key];
      };
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (const Schema* prop = s.property(it.key())) {
          Walk(*prop, it.value(), old_child(it.key()), ChildPath(path, it.key()), false);
        } else if (s.additional_properties) {
          Walk(*s.additional_properties, it.value(), old_child(it.key()), KeyPath(path, it.key()), false);
        }
      }
    } else if (value.is_array() && s.items) {
      const json* old_list = old != nullptr && old->is_array() ? old : nullptr;
      for (std::size_t i = 0; i < value.size(); ++i) {
        Walk(*s.items, value[i], CorrelatedItem(s, value[i], old_list), IndexPath(path, i), false);
      }
    }
  }

 private:
  void RunRules(const Schema& s, const json& value, const json* old, const std::string& path, bool root) {
    cel::Activation activation{root ? RootValue(value, s) : cel::from_json(value, &s), std::nullopt};
    if (old != nullptr) activation.old_self = root ? RootValue(*old, s) : cel::from_json(*old, &s);
    const std::string field = path.empty() ? "<nil>" : path;
    for (const auto& rule : s.rules) {
      if (!rule.program || (rule.uses_old_self && old == nullptr)) continue;
      std::optional<cel::Value> result;
      try {
        result = cel::Evaluate(*rule.program, activation);
      } catch (const cel::EvalError& e) {
        out_.errors.push_back(EvaluationError(field, s.type, e.what(), rule));
        continue;
      }
      if (result->is<bool>() && result->as<bool>()) continue;
      FieldError error = failure(s, rule, activation, value, path);
      if (!rule.uses_old_self && old != nullptr && *old == value) {
        out_.warnings.push_back(error.text());  // ratcheting: the value did not change
      } else {
        out_.errors.push_back(std::move(error));
      }
    }
  }

  static FieldError EvaluationError(const std::string& field, const std::string& type, const std::string& what,
                                     const ValidationRule& rule) {
    if (what.rfind("no such overload", 0) == 0) {
      return Invalid(field, type, "'" + what + "': call arguments did not match a supported operator, function or macro signature for rule: " + RuleText(rule));
    }
    return Invalid(field, type, what + " evaluating rule: " + RuleText(rule));
  }

  // The rule's message: messageExpression's string when it evaluates to one, else message, else the rule.
  static std::string detail(const ValidationRule& rule, const cel::Activation& activation) {
    if (rule.message_program) {
      try {
        const cel::Value v = cel::Evaluate(*rule.message_program, activation);
        if (v.is<std::string>() && !trimmed(v.str()).empty() && v.str().find('\n') == std::string::npos) return trimmed(v.str());
      } catch (const cel::EvalError&) {
      }
    }
    return rule.message.empty() ? "failed rule: " + trimmed(rule.rule) : trimmed(rule.message);
  }

  // The value is the rule's own (a string, a number), omitted for an object or a list (apiextensions 1.35).
  static FieldError failure(const Schema& s, const ValidationRule& rule, const cel::Activation& activation, const json& value,
                            const std::string& path) {
    std::string field = rule.normalized_field_path.empty() ? path : ChildPath(path, rule.normalized_field_path);
    if (field.empty()) field = "<nil>";
    const std::string text = detail(rule, activation);
    if (rule.reason == "FieldValueForbidden") return Forbidden(field, text);
    if (rule.reason == "FieldValueRequired") return Required(field, text);
    FieldError error = rule.reason == "FieldValueDuplicate" ? Duplicate(field, value) : Invalid(field, value, text);
    error.omit_value = s.type == "object" || s.type == "array";
    return error;
  }

  RuleOutcome& out_;
};

}  // namespace

RuleOutcome ValidateRules(const Schema& root, const json& object, const json* old) {
  RuleOutcome out;
  RuleRunner(out).Walk(root, object, old, "", true);
  return out;
}

}  // namespace gangplank::apiserver_double::schema
