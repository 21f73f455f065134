// Evaluates a parsed CEL expression against the variables of an activation. Errors (missing keys,
// overflow, type mismatches) are thrown as EvalError with cel-go's wording.
#pragma once

#include "cel/activation.h"
#include "cel/ast.h"
#include "cel/value.h"

namespace gangplank::cel {

Value Evaluate(const Expr& expr, const Activation& activation);

}  // namespace gangplank::cel
