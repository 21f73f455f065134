// Evaluates a parsed CEL expression against `self` (and `oldSelf` for transition rules). Errors
// (missing keys, overflow, type mismatches) are thrown as EvalError with cel-go's wording.
#pragma once

#include <optional>

#include "apiserver-double/cel/ast.h"
#include "apiserver-double/cel/value.h"

namespace gangplank::apiserver_double::cel {

struct Activation {
  Value self;
  std::optional<Value> old_self;  // set on update when the value has a correlated old value
};

Value Evaluate(const Expr& expr, const Activation& activation);

}  // namespace gangplank::apiserver_double::cel
