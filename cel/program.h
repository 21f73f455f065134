// A CEL expression compiled once and evaluated many times: parsed, checked (declared variables, known
// functions, literal regular expressions, nesting depth, length), its literal patterns compiled. Copies
// share the immutable tree, so a Program is cheap to copy, to keep in a cache and to evaluate from many
// threads at once; each evaluation is capped in steps, so a hostile expression ends in an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cel/activation.h"
#include "cel/ast.h"
#include "cel/evaluator.h"
#include "cel/value.h"

namespace gangplank::cel {

// Kubernetes refuses a DRA selector longer than this (CELSelectorExpressionMaxLength).
inline constexpr std::size_t kMaxExpressionBytes = 10 * 1024;
// How deep the tree of an expression may be (a chain of 1,000 `&&` is 1,000 deep) before Compile refuses
// it, so evaluation never recurses past it. The parser separately refuses 250 nested parentheses.
inline constexpr int kMaxNestingDepth = 1000;

struct CompileOptions {
  // The variables an expression may name (a DRA selector: {"device"}); empty: any name, a missing one
  // is then an evaluation error ("no such attribute: x").
  std::vector<std::string> variables;
  std::size_t max_source_bytes = kMaxExpressionBytes;
  uint64_t max_steps = kDefaultMaxSteps;  // per evaluation
};

// Why an expression was refused, worded as Kubernetes words it ("compilation failed: ERROR: <input>:1:5:
// undeclared reference to 'x' (in container '')\n | x + 1\n | ^").
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Program {
 public:
  // Throws CompileError.
  static Program Compile(const std::string& source, const CompileOptions& options = {});

  // Throws EvalError (missing keys, overloads, the step cap: "operation cancelled: actual cost limit
  // exceeded").
  Value Evaluate(const Activation& activation) const;
  // The result of a selector: throws EvalError when it is not a bool.
  bool EvaluateBool(const Activation& activation) const;

  const std::string& source() const { return compiled_->source; }
  const Expr& expr() const { return *compiled_->expr; }

 private:
  struct Compiled {
    std::string source;
    ExprPtr expr;
    Patterns patterns;
    uint64_t max_steps = kDefaultMaxSteps;
  };
  explicit Program(std::shared_ptr<const Compiled> compiled) : compiled_(std::move(compiled)) {}

  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace gangplank::cel
