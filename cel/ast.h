// The parsed form of a CEL expression. Operators are calls ("_+_", "_&&_", "!_", "_[_]", "@in",
// "_?_:_"); has() is a test-only select; all/exists/exists_one/map/filter are comprehensions;
// cel.bind(name, value, body) is a bind.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cel/value.h"

namespace gangplank::cel {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind { kLiteral, kIdent, kSelect, kCall, kList, kMap, kComprehension, kBind };
  Kind kind = Kind::kLiteral;
  std::size_t pos = 0;  // byte offset of the node in the source, for diagnostics
  Value literal;
  std::string name;          // identifier, selected field, function or macro name
  bool test_only = false;    // select inside has()
  ExprPtr target;            // select operand, method receiver, comprehension range, bound value
  std::vector<ExprPtr> args; // call arguments, list elements, map k0,v0,k1,v1..., comprehension or bind bodies
  std::string iter_var;      // comprehension or bound variable
};

}  // namespace gangplank::cel
