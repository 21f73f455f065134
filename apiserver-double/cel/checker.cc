#include "apiserver-double/cel/checker.h"

#include <optional>
#include <set>
#include <vector>

#include "apiserver-double/cel/schema_values.h"
#include "apiserver-double/cel/types.h"
#include "apiserver-double/schema/schema.h"
#include "cel/builtins.h"
#include "cel/parser.h"

namespace gangplank::apiserver_double::cel {
namespace {

using gangplank::cel::Expr;
using gangplank::cel::ExprPtr;
using gangplank::cel::FormatDiagnostic;
using gangplank::cel::IsOperator;
using gangplank::cel::Parse;
using gangplank::cel::SyntaxError;
using gangplank::cel::Value;
using K = Type::Kind;

// The functions kube-apiserver's CRD environment declares that the double knows, global or as methods.
bool IsFunction(const std::string& name, bool as_method) {
  static const std::set<std::string> globals = {"size", "int", "uint", "double", "string", "bool", "dyn", "matches"};
  static const std::set<std::string> methods = {"size", "startsWith", "endsWith", "contains", "matches", "lowerAscii",
                                                "upperAscii", "trim", "split", "join", "min", "max", "isSorted"};
  return as_method ? methods.count(name) > 0 : globals.count(name) > 0;
}

bool fits(const Type& t, K k) { return t.dyn() || t.kind == k; }

Type LiteralType(const Value& v) {
  if (v.IsNull()) return Type::of(K::kNull);
  if (v.is<bool>()) return Type::of(K::kBool);
  if (v.is<int64_t>()) return Type::of(K::kInt);
  if (v.is<uint64_t>()) return Type::of(K::kUint);
  if (v.is<double>()) return Type::of(K::kDouble);
  return Type::of(K::kString);
}

// The first operand type that is not dyn (dyn when all are).
Type known(const std::vector<Type>& args) {
  for (const auto& a : args) {
    if (!a.dyn()) return a;
  }
  return Type{};
}

bool AllSame(const std::vector<Type>& args, const Type& t) {
  for (const auto& a : args) {
    if (!a.same(t)) return false;
  }
  return true;
}

// Result of an operator for the argument types, or nullopt when no overload matches.
std::optional<Type> OperatorResult(const std::string& op, const std::vector<Type>& a) {
  static const std::set<std::string> ordering = {"_<_", "_<=_", "_>_", "_>=_"};
  const Type t = known(a);
  if (op == "!_") return fits(a[0], K::kBool) ? std::optional(Type::of(K::kBool)) : std::nullopt;
  if (op == "-_") return fits(a[0], K::kInt) || fits(a[0], K::kDouble) ? std::optional(a[0]) : std::nullopt;
  if (op == "_&&_" || op == "_||_") {
    return fits(a[0], K::kBool) && fits(a[1], K::kBool) ? std::optional(Type::of(K::kBool)) : std::nullopt;
  }
  if (op == "_==_" || op == "_!=_" || op == "@in") return Type::of(K::kBool);
  if (op == "_?_:_") {
    if (!fits(a[0], K::kBool) || !a[1].same(a[2])) return std::nullopt;
    return a[1].dyn() ? a[2] : a[1];
  }
  if (ordering.count(op)) {
    const bool numbers = (a[0].dyn() || a[0].numeric()) && (a[1].dyn() || a[1].numeric());
    const bool same_kind = a[0].same(a[1]) && (t.dyn() || t.kind == K::kString || t.kind == K::kBool);
    return numbers || same_kind ? std::optional(Type::of(K::kBool)) : std::nullopt;
  }
  if (op == "_[_]") {
    if (a[0].kind == K::kList) return fits(a[1], K::kInt) || fits(a[1], K::kUint) ? std::optional(a[0].elem()) : std::nullopt;
    if (a[0].kind == K::kMap) return fits(a[1], K::kString) ? std::optional(a[0].elem()) : std::nullopt;
    return a[0].dyn() ? std::optional(Type{}) : std::nullopt;
  }
  // Arithmetic: operands of one type that the operator supports.
  if (!AllSame(a, t)) return std::nullopt;
  if (t.dyn()) return Type{};
  const bool plus_ok = t.numeric() || t.kind == K::kString || t.kind == K::kList;
  const bool ok = op == "_+_" ? plus_ok : op == "_%_" ? (t.kind == K::kInt || t.kind == K::kUint) : t.numeric();
  return ok ? std::optional(t) : std::nullopt;
}

// Result of a global function, or nullopt when no overload matches.
std::optional<Type> GlobalResult(const std::string& name, const std::vector<Type>& a) {
  if (name == "matches") return a.size() == 2 && fits(a[0], K::kString) && fits(a[1], K::kString) ? std::optional(Type::of(K::kBool)) : std::nullopt;
  if (a.size() != 1) return std::nullopt;
  const Type& x = a[0];
  if (name == "size") return fits(x, K::kString) || x.kind == K::kList || x.kind == K::kMap ? std::optional(Type::of(K::kInt)) : std::nullopt;
  if (name == "dyn") return Type{};
  if (name == "bool") return fits(x, K::kBool) || x.kind == K::kString ? std::optional(Type::of(K::kBool)) : std::nullopt;
  if (name == "string") return x.dyn() || x.numeric() || x.kind == K::kString || x.kind == K::kBool ? std::optional(Type::of(K::kString)) : std::nullopt;
  const bool convertible = x.dyn() || x.numeric() || x.kind == K::kString;
  if (!convertible) return std::nullopt;
  return Type::of(name == "int" ? K::kInt : name == "uint" ? K::kUint : K::kDouble);
}

// Result of a method call on `target`, or nullopt when no overload matches.
std::optional<Type> MethodResult(const std::string& name, const Type& target, const std::vector<Type>& a) {
  static const std::set<std::string> predicates = {"startsWith", "endsWith", "contains", "matches"};
  static const std::set<std::string> string_to_string = {"lowerAscii", "upperAscii", "trim"};
  if (name == "size" && a.empty()) return fits(target, K::kString) || target.kind == K::kList || target.kind == K::kMap ? std::optional(Type::of(K::kInt)) : std::nullopt;
  if (target.dyn()) return predicates.count(name) || name == "isSorted" ? Type::of(K::kBool) : Type{};
  if (target.kind == K::kString) {
    if (predicates.count(name) && a.size() == 1 && fits(a[0], K::kString)) return Type::of(K::kBool);
    if (string_to_string.count(name) && a.empty()) return Type::of(K::kString);
    if (name == "split" && a.size() == 1 && fits(a[0], K::kString)) return Type::List(Type::of(K::kString));
    return std::nullopt;
  }
  if (target.kind == K::kList) {
    if (name == "join" && a.size() <= 1 && fits(target.elem(), K::kString)) return Type::of(K::kString);
    if ((name == "min" || name == "max") && a.empty()) return target.elem();
    if (name == "isSorted" && a.empty()) return Type::of(K::kBool);
  }
  return std::nullopt;
}

std::string signature(const std::vector<Type>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : ", ") + a.name();
  return "(" + out + ")";
}

class Checker {
 public:
  Checker(const std::string& source, const schema::Schema* self_schema, bool root)
      : source_(source), self_(Type::FromSchema(self_schema)), root_(root) {
    if (root_ && self_.dyn() && self_schema != nullptr) self_ = Type{K::kObject, nullptr, self_schema};
  }

  Type Check(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral: return LiteralType(e.literal);
      case Expr::Kind::kIdent: return ident(e);
      case Expr::Kind::kSelect: return Select(e);
      case Expr::Kind::kCall: return Call(e);
      case Expr::Kind::kList: return List(e);
      case Expr::Kind::kMap:
        for (const auto& a : e.args) Check(*a);
        return Type::map(Type{});
      case Expr::Kind::kComprehension: return comprehension(e);
      case Expr::Kind::kBind:  // cel.bind is DRA's bindings extension, not in the CRD environment
        error(e.pos, "undeclared reference to 'bind' (in container '')");
        return Type{};
    }
    return Type{};
  }

  void error(std::size_t pos, const std::string& message) {
    errors_ += (errors_.empty() ? "" : "\n") + FormatDiagnostic(source_, pos, message);
  }
  bool uses_old_self() const { return uses_old_self_; }
  const std::string& errors() const { return errors_; }

 private:
  Type ident(const Expr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == e.name) return it->second;
    }
    if (e.name == "self") return self_;
    if (e.name == "oldSelf") {
      uses_old_self_ = true;
      return self_;
    }
    error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
    return Type{};
  }

  Type Select(const Expr& e) {
    const bool from_root = root_ && e.target->kind == Expr::Kind::kIdent && (e.target->name == "self" || e.target->name == "oldSelf");
    const Type operand = Check(*e.target);
    if (e.test_only && !operand.dyn() && operand.kind != K::kObject && operand.kind != K::kMap) {
      error(e.pos, "invalid type for field selection.");
      return Type::of(K::kBool);
    }
    Type field = FieldType(e, operand, from_root);
    return e.test_only ? Type::of(K::kBool) : field;
  }

  Type FieldType(const Expr& e, const Type& operand, bool from_root) {
    if (operand.dyn()) return Type{};
    if (operand.kind == K::kMap) return operand.elem();
    if (operand.kind != K::kObject) {
      error(e.pos, "type '" + operand.name() + "' does not support field selection");
      return Type{};
    }
    const std::string property = UnescapeProperty(e.name);
    const schema::Schema* prop = operand.schema->property(property);
    if (prop != nullptr && EscapeProperty(property) == e.name) return Type::FromSchema(prop);
    if (from_root && (e.name == "apiVersion" || e.name == "kind")) return Type::of(K::kString);
    if (from_root && e.name == "metadata") return Type{};
    if (operand.schema->preserve_unknown_fields) return Type{};
    error(e.pos, "undefined field '" + e.name + "'");
    return Type{};
  }

  Type Call(const Expr& e) {
    std::optional<Type> target;
    if (e.target) target = Check(*e.target);
    std::vector<Type> args;
    for (const auto& a : e.args) args.push_back(Check(*a));
    const bool known = e.target ? IsFunction(e.name, true) : (IsOperator(e.name) || IsFunction(e.name, false));
    if (!known) {
      error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
      return Type{};
    }
    std::optional<Type> result = target ? MethodResult(e.name, *target, args)
                                 : IsOperator(e.name) ? OperatorResult(e.name, args)
                                                       : GlobalResult(e.name, args);
    if (result) return *result;
    const std::string applied = target ? target->name() + "." + signature(args) : signature(args);
    error(e.pos, "found no matching overload for '" + e.name + "' applied to '" + applied + "'");
    return Type{};
  }

  Type List(const Expr& e) {
    std::vector<Type> elems;
    for (const auto& a : e.args) elems.push_back(Check(*a));
    const Type t = known(elems);
    return Type::List(AllSame(elems, t) ? t : Type{});
  }

  Type comprehension(const Expr& e) {
    const Type range = Check(*e.target);
    Type element;
    if (range.kind == K::kList) {
      element = range.elem();
    } else if (range.kind == K::kMap) {
      element = Type::of(K::kString);
    } else if (!range.dyn()) {
      error(e.target->pos, "expression of type '" + range.name() + "' cannot be range of a comprehension (must be list, map, or dynamic)");
    }
    scope_.emplace_back(e.iter_var, element);
    std::vector<Type> bodies;
    for (const auto& a : e.args) bodies.push_back(Check(*a));
    scope_.pop_back();
    const bool has_predicate = !(e.name == "map" && e.args.size() == 1);
    if (has_predicate && !fits(bodies[0], K::kBool)) {
      error(e.args[0]->pos, "found no matching overload for '" + e.name + "' predicate of type '" + bodies[0].name() + "'");
    }
    if (e.name == "map") return Type::List(bodies.back());
    if (e.name == "filter") return Type::List(element);
    return Type::of(K::kBool);
  }

  const std::string& source_;
  Type self_;
  bool root_;
  bool uses_old_self_ = false;
  std::string errors_;
  std::vector<std::pair<std::string, Type>> scope_;
};

}  // namespace

Compiled Compile(const std::string& source, const schema::Schema* self_schema, bool resource_root, ResultType result) {
  Compiled out;
  ExprPtr program;
  try {
    program = Parse(source);
  } catch (const SyntaxError& e) {
    out.errors = "compilation failed: " + FormatDiagnostic(source, e.pos(), e.what());
    return out;
  }
  Checker checker(source, self_schema, resource_root);
  const Type type = checker.Check(*program);
  out.uses_old_self = checker.uses_old_self();
  if (!checker.errors().empty()) {
    out.errors = "compilation failed: " + checker.errors();
  } else if (result == ResultType::kBool && !fits(type, K::kBool)) {
    out.errors = "cel expression must evaluate to a bool";
  } else if (result == ResultType::kString && !fits(type, K::kString)) {
    out.errors = "must evaluate to a string";
  } else {
    out.program = std::move(program);
  }
  return out;
}

}  // namespace gangplank::apiserver_double::cel
