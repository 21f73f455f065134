// CEL's built-in operators and functions on evaluated arguments: arithmetic with overflow checks,
// comparisons, indexing, `in`, size, conversions (int, uint, double, string, bool) and the string and
// list functions of Kubernetes' CEL environments. Mismatched types throw EvalError("no such overload").
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

}  // namespace gangplank::cel
