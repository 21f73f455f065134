// Recursive-descent parser for CEL (conditional, logical, relational, arithmetic, unary, member,
// index, call, list/map literals), expanding the has/all/exists/exists_one/map/filter macros and
// cel.bind; nesting deeper than 250 levels is a SyntaxError, as in cel-go.
#pragma once

#include <string>

#include "cel/ast.h"
#include "cel/lexer.h"

namespace gangplank::cel {

// Throws SyntaxError with the offset of the offending token.
ExprPtr Parse(const std::string& source);

}  // namespace gangplank::cel
