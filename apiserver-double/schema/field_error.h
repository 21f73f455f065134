// A field-level validation error as apimachinery's field.Error words it, and the 422 Status that
// kube-apiserver builds from a list of them (errors.NewInvalid).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/api_error.h"

namespace gangplank::apiserver_double::schema {

enum class ErrorType { kInvalid, kTypeInvalid, kRequired, kNotSupported, kDuplicate, kForbidden, kTooLong, kTooMany, kNotFound };

struct FieldError {
  ErrorType type = ErrorType::kInvalid;
  std::string field;  // "spec.queues[0].weight"; "<nil>" where upstream passes a nil path
  nlohmann::json value;
  std::string detail;
  bool omit_value = false;  // field.OmitValueType: TooMany without a count, a CEL rule on an object or list
  std::string value_text;   // printed verbatim instead of `value` when set (a Go struct, e.g. a ValidationRule)

  std::string reason() const;  // the StatusCause type, e.g. "FieldValueInvalid"
  std::string body() const;    // ErrorBody(): `Invalid value: -1: ...`
  std::string text() const { return field + ": " + body(); }
};
using FieldErrors = std::vector<FieldError>;

FieldError Invalid(std::string field, nlohmann::json value, std::string detail);
FieldError TypeInvalid(std::string field, nlohmann::json value, std::string detail);
FieldError Required(std::string field, std::string detail = "");
FieldError NotSupported(std::string field, nlohmann::json value, const std::vector<std::string>& supported);
FieldError Duplicate(std::string field, nlohmann::json value);
FieldError NotFound(std::string field, nlohmann::json value);
FieldError Forbidden(std::string field, std::string detail);
FieldError TooLong(std::string field, long long max_length);
FieldError TooMany(std::string field, long long actual, long long max_items);

// 422 Invalid: message `<Kind>.<group> "<name>" is invalid: <error>` or `...: [<e1>, <e2>]` (duplicates
// dropped, as ErrorList.ToAggregate does), details {name, group, kind, causes}.
ApiError InvalidStatus(const std::string& group, const std::string& kind, const std::string& name,
                        const FieldErrors& errors);

}  // namespace gangplank::apiserver_double::schema
