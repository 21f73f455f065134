#include "apiserver-double/schema/field_error.h"

#include <set>

#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

const char* TypeWords(ErrorType type) {
  switch (type) {
    case ErrorType::kRequired: return "Required value";
    case ErrorType::kNotSupported: return "Unsupported value";
    case ErrorType::kDuplicate: return "Duplicate value";
    case ErrorType::kForbidden: return "Forbidden";
    case ErrorType::kTooLong: return "Too long";
    case ErrorType::kTooMany: return "Too many";
    case ErrorType::kNotFound: return "Not found";
    case ErrorType::kInvalid:
    case ErrorType::kTypeInvalid: break;
  }
  return "Invalid value";
}

// How ErrorBody prints BadValue (apimachinery 1.35): int64/float64/bool with %v, strings with %q, the rest
// (maps, slices, nil) as encoding/json writes them.
std::string BadValue(const json& value) {
  if (value.is_string()) return GoQuote(value.get<std::string>());
  if (value.is_number() || value.is_boolean()) return GoPlain(value);
  return GoJson(value);
}

FieldError Make(ErrorType type, std::string field, json value, std::string detail) {
  FieldError e;
  e.type = type;
  e.field = std::move(field);
  e.value = std::move(value);
  e.detail = std::move(detail);
  return e;
}

}  // namespace

std::string FieldError::reason() const {
  switch (type) {
    case ErrorType::kRequired: return "FieldValueRequired";
    case ErrorType::kNotSupported: return "FieldValueNotSupported";
    case ErrorType::kDuplicate: return "FieldValueDuplicate";
    case ErrorType::kForbidden: return "FieldValueForbidden";
    case ErrorType::kTooLong: return "FieldValueTooLong";
    case ErrorType::kTooMany: return "FieldValueTooMany";
    case ErrorType::kNotFound: return "FieldValueNotFound";
    case ErrorType::kTypeInvalid: return "FieldValueTypeInvalid";
    case ErrorType::kInvalid: break;
  }
  return "FieldValueInvalid";
}

std::string FieldError::body() const {
  std::string s = TypeWords(type);
  const bool valueless = type == ErrorType::kRequired || type == ErrorType::kForbidden ||
                         type == ErrorType::kTooLong || omit_value;
  if (!valueless) s += ": " + (value_text.empty() ? BadValue(value) : value_text);
  if (!detail.empty()) s += ": " + detail;
  return s;
}

FieldError Invalid(std::string field, json value, std::string detail) {
  return Make(ErrorType::kInvalid, std::move(field), std::move(value), std::move(detail));
}
FieldError TypeInvalid(std::string field, json value, std::string detail) {
  return Make(ErrorType::kTypeInvalid, std::move(field), std::move(value), std::move(detail));
}
FieldError Required(std::string field, std::string detail) {
  return Make(ErrorType::kRequired, std::move(field), "", std::move(detail));
}
FieldError Forbidden(std::string field, std::string detail) {
  return Make(ErrorType::kForbidden, std::move(field), "", std::move(detail));
}
FieldError Duplicate(std::string field, json value) {
  return Make(ErrorType::kDuplicate, std::move(field), std::move(value), "");
}
FieldError NotFound(std::string field, json value) {
  return Make(ErrorType::kNotFound, std::move(field), std::move(value), "");
}

FieldError NotSupported(std::string field, json value, const std::vector<std::string>& supported) {
  std::string detail;
  for (const auto& v : supported) detail += (detail.empty() ? "supported values: " : ", ") + GoQuote(v);
  return Make(ErrorType::kNotSupported, std::move(field), std::move(value), std::move(detail));
}

FieldError TooLong(std::string field, long long max_length) {
  // field.TooLong as of apimachinery 1.35.
  const std::string unit = max_length == 1 ? " byte" : " bytes";
  return Make(ErrorType::kTooLong, std::move(field), "",
              max_length >= 0 ? "may not be more than " + std::to_string(max_length) + unit : "value is too long");
}

FieldError TooMany(std::string field, long long actual, long long max_items) {
  FieldError e = Make(ErrorType::kTooMany, std::move(field), actual,
                      max_items >= 0 ? "must have at most " + std::to_string(max_items) + " items" : "has too many items");
  e.omit_value = actual < 0;
  return e;
}

ApiError InvalidStatus(const std::string& group, const std::string& kind, const std::string& name,
                        const FieldErrors& errors) {
  json causes = json::array();
  std::vector<std::string> messages;
  std::set<std::string> seen;
  for (const auto& e : errors) {
    causes.push_back({{"reason", e.reason()}, {"message", e.body()}, {"field", e.field}});
    if (seen.insert(e.text()).second) messages.push_back(e.text());
  }
  const std::string qualified = group.empty() ? kind : kind + "." + group;
  std::string message = qualified + " " + GoQuote(name) + " is invalid";
  if (messages.size() == 1) {
    message += ": " + messages.front();
  } else if (!messages.empty()) {
    std::string joined;
    for (const auto& m : messages) joined += (joined.empty() ? "" : ", ") + m;
    message += ": [" + joined + "]";
  }
  return ApiError(422, "Invalid", message, {{"name", name}, {"group", group}, {"kind", kind}, {"causes", causes}});
}

}  // namespace gangplank::apiserver_double::schema
