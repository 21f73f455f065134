// What a CRD validation rule is evaluated against: `self`, and `oldSelf` on an update where the value has
// a correlated old value. The rule is a gangplank::cel expression; the names below are the vocabulary the
// double's schema code uses for it.
#pragma once

#include <optional>

#include "cel/ast.h"
#include "cel/value.h"

namespace gangplank::apiserver_double::cel {

using gangplank::cel::EvalError;
using gangplank::cel::Expr;
using gangplank::cel::ExprPtr;
using gangplank::cel::List;
using gangplank::cel::Map;
using gangplank::cel::Value;

struct Activation {
  Value self;
  std::optional<Value> old_self;  // set on update when the value has a correlated old value
};

// Throws EvalError as gangplank::cel::Evaluate does; `oldSelf` is unbound when old_self is empty.
Value Evaluate(const Expr& rule, const Activation& activation);

}  // namespace gangplank::apiserver_double::cel
