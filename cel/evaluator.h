// Evaluates a parsed CEL expression against the variables of an activation. Errors (missing keys,
// overflow, type mismatches) are thrown as EvalError with cel-go's wording. Every evaluation is capped
// in steps: one per node evaluated, plus one per list or map element and per ten string bytes that a
// function takes or makes; past the cap it throws "operation cancelled: actual cost limit exceeded".
#pragma once

#include <cstdint>
#include <regex>
#include <unordered_map>

#include "cel/activation.h"
#include "cel/ast.h"
#include "cel/value.h"

namespace gangplank::cel {

// The default step cap, DRA's selector cost limit (CELSelectorExpressionMaxCost).
inline constexpr uint64_t kDefaultMaxSteps = 1'000'000;

// Regular expressions compiled ahead, by the `matches` call whose pattern is a literal.
using Patterns = std::unordered_map<const Expr*, std::regex>;

struct EvalOptions {
  uint64_t max_steps = kDefaultMaxSteps;
  const Patterns* patterns = nullptr;
};

Value Evaluate(const Expr& expr, const Activation& activation, const EvalOptions& options = {});

}  // namespace gangplank::cel
