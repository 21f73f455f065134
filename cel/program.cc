#include "cel/program.h"

#include <algorithm>

#include "cel/builtins.h"
#include "cel/lexer.h"
#include "cel/parser.h"
#include "cel/string_functions.h"

namespace gangplank::cel {
namespace {

std::string Undeclared(const std::string& name) { return "undeclared reference to '" + name + "' (in container '')"; }

// The checks cel-go's checker makes that do not need types: every identifier is a declared variable or a
// comprehension's, every function exists, literal patterns compile, the tree is not too deep.
class Checker {
 public:
  Checker(const std::string& source, const CompileOptions& options, Patterns& patterns)
      : source_(source), options_(options), patterns_(patterns) {}

  void Walk(const Expr& e, int depth) {
    if (depth > kMaxNestingDepth) {
      if (!too_deep_) Error(e.pos, "expression recursion limit exceeded: " + std::to_string(kMaxNestingDepth));
      too_deep_ = true;
      return;
    }
    switch (e.kind) {
      case Expr::Kind::kLiteral: return;
      case Expr::Kind::kIdent:
        if (!Declared(e.name)) Error(e.pos, Undeclared(e.name));
        return;
      case Expr::Kind::kSelect: Walk(*e.target, depth + 1); return;
      case Expr::Kind::kCall: Call(e, depth); return;
      case Expr::Kind::kList:
      case Expr::Kind::kMap:
        for (const auto& a : e.args) Walk(*a, depth + 1);
        return;
      case Expr::Kind::kComprehension:
      case Expr::Kind::kBind:
        Walk(*e.target, depth + 1);
        scope_.push_back(e.iter_var);
        for (const auto& a : e.args) Walk(*a, depth + 1);
        scope_.pop_back();
        return;
    }
  }

  const std::string& errors() const { return errors_; }

 private:
  void Call(const Expr& e, int depth) {
    if (e.target) Walk(*e.target, depth + 1);
    for (const auto& a : e.args) Walk(*a, depth + 1);
    const bool known = e.target ? IsBuiltinFunction(e.name, true) : IsOperator(e.name) || IsBuiltinFunction(e.name, false);
    if (!known) Error(e.pos, Undeclared(e.name));
    if (e.name != "matches") return;
    // s.matches(p) or matches(s, p): a literal pattern is compiled now, and refused now when it does not.
    const std::size_t pattern_arg = e.target ? 0 : 1;
    const Expr* pattern = e.args.size() == pattern_arg + 1 ? e.args[pattern_arg].get() : nullptr;
    if (pattern == nullptr || pattern->kind != Expr::Kind::kLiteral || !pattern->literal.is<std::string>()) return;
    std::string error;
    std::optional<std::regex> compiled = CompilePattern(pattern->literal.str(), &error);
    if (!compiled) {
      Error(pattern->pos, error);
      return;
    }
    patterns_.emplace(&e, std::move(*compiled));
  }

  bool Declared(const std::string& name) const {
    if (std::find(scope_.begin(), scope_.end(), name) != scope_.end()) return true;
    const auto& declared = options_.variables;
    return declared.empty() || std::find(declared.begin(), declared.end(), name) != declared.end();
  }

  void Error(std::size_t pos, const std::string& message) {
    errors_ += (errors_.empty() ? "" : "\n") + FormatDiagnostic(source_, pos, message);
  }

  const std::string& source_;
  const CompileOptions& options_;
  Patterns& patterns_;
  std::vector<std::string> scope_;
  std::string errors_;
  bool too_deep_ = false;
};

}  // namespace

Program Program::Compile(const std::string& source, const CompileOptions& options) {
  if (source.size() > options.max_source_bytes) {
    throw CompileError("expression too long: " + std::to_string(source.size()) + " bytes, more than the limit of " +
                       std::to_string(options.max_source_bytes));
  }
  auto compiled = std::make_shared<Compiled>();
  compiled->source = source;
  compiled->max_steps = options.max_steps;
  try {
    compiled->expr = Parse(compiled->source);
  } catch (const SyntaxError& e) {
    throw CompileError("compilation failed: " + FormatDiagnostic(source, e.pos(), e.what()));
  }
  Checker checker(compiled->source, options, compiled->patterns);
  checker.Walk(*compiled->expr, 0);
  if (!checker.errors().empty()) throw CompileError("compilation failed: " + checker.errors());
  return Program(std::move(compiled));
}

Value Program::Evaluate(const Activation& activation) const {
  return cel::Evaluate(*compiled_->expr, activation, EvalOptions{compiled_->max_steps, &compiled_->patterns});
}

bool Program::EvaluateBool(const Activation& activation) const {
  const Value result = Evaluate(activation);
  if (!result.is<bool>()) throw EvalError("CEL result of type " + result.TypeName() + " could not be converted to bool");
  return result.as<bool>();
}

}  // namespace gangplank::cel
