// Runs the compiled x-kubernetes-validations rules over a custom resource as kube-apiserver's CEL
// validator does: each rule on every non-null value its schema node holds, `self` being that value;
// transition rules (oldSelf) only where an old value correlates (same property, same list-map key).
// With validation ratcheting, a failed non-transition rule on an unchanged value is only a warning.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver-double/schema/field_error.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::schema {

struct RuleOutcome {
  FieldErrors errors;
  std::vector<std::string> warnings;
};

RuleOutcome ValidateRules(const Schema& root, const nlohmann::json& object, const nlohmann::json* old);

}  // namespace gangplank::apiserver_double::schema
