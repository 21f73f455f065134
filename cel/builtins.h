// CEL's built-in operators and functions on evaluated arguments: arithmetic with overflow checks,
// comparisons, indexing, `in`, size, conversions (int, uint, double, string, bool), the list functions
// (join, min, max, isSorted, sum, indexOf, lastIndexOf), and dispatch to the string methods
// (string_functions.h) and Kubernetes' quantity and semver libraries (kubernetes_functions.h).
// Mismatched types throw EvalError("no such overload").
#pragma once

#include <string>
#include <vector>

#include "cel/value.h"

namespace gangplank::cel {

// Operators by their call name ("_+_", "_<_", "_[_]", "@in", "!_", "-_", ...).
Value ApplyOperator(const std::string& name, const std::vector<Value>& args);
// Global functions (size(x), int(x)) when target is null; methods (x.size(), s.startsWith(p)) otherwise.
Value CallFunction(const std::string& name, const Value* target, const std::vector<Value>& args);

bool IsOperator(const std::string& name);
// Whether a global function (`as_method` false) or a method of that name exists.
bool IsBuiltinFunction(const std::string& name, bool as_method);

}  // namespace gangplank::cel
