#include "apiserver-double/cel/checker.h"

#include <vector>

#include "apiserver-double/cel/builtins.h"
#include "apiserver-double/cel/parser.h"
#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::cel {
namespace {

class Checker {
 public:
  Checker(const std::string& source, const schema::Schema* self_schema, bool root)
      : source_(source), self_(self_schema), root_(root) {}

  // Returns the schema of `e`'s value where it is statically known, null otherwise (dynamic).
  const schema::Schema* check(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral: return nullptr;
      case Expr::Kind::kIdent: return ident(e);
      case Expr::Kind::kSelect: return select(e);
      case Expr::Kind::kCall: return call(e);
      case Expr::Kind::kList:
      case Expr::Kind::kMap:
        for (const auto& a : e.args) check(*a);
        return nullptr;
      case Expr::Kind::kComprehension: return comprehension(e);
    }
    return nullptr;
  }

  bool uses_old_self() const { return uses_old_self_; }
  const std::string& errors() const { return errors_; }

 private:
  void error(std::size_t pos, const std::string& message) {
    errors_ += (errors_.empty() ? "" : "\n") + format_diagnostic(source_, pos, message);
  }

  const schema::Schema* ident(const Expr& e) {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == e.name) return it->second;
    }
    if (e.name == "self") return self_;
    if (e.name == "oldSelf") {
      uses_old_self_ = true;
      return self_;
    }
    error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
    return nullptr;
  }

  const schema::Schema* select(const Expr& e) {
    const bool from_root = e.target->kind == Expr::Kind::kIdent && (e.target->name == "self" || e.target->name == "oldSelf") && root_;
    const schema::Schema* s = check(*e.target);
    if (s == nullptr) return nullptr;
    if (s->additional_properties) return s->additional_properties.get();
    if (s->type != "object" || s->preserve_unknown_fields) return nullptr;
    if (const schema::Schema* prop = s->property(unescape_property(e.name))) return prop;
    if (from_root && (e.name == "apiVersion" || e.name == "kind" || e.name == "metadata")) return nullptr;
    error(e.pos, "undefined field '" + e.name + "'");
    return nullptr;
  }

  const schema::Schema* call(const Expr& e) {
    const schema::Schema* target = e.target ? check(*e.target) : nullptr;
    std::vector<const schema::Schema*> args;
    for (const auto& a : e.args) args.push_back(check(*a));
    const bool known = e.target ? is_function(e.name, true) : (is_operator(e.name) || is_function(e.name, false));
    if (!known) error(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
    if (e.name == "_[_]" && !args.empty() && args[0] != nullptr) {
      if (args[0]->items) return args[0]->items.get();
      if (args[0]->additional_properties) return args[0]->additional_properties.get();
    }
    (void)target;
    return nullptr;
  }

  const schema::Schema* comprehension(const Expr& e) {
    const schema::Schema* range = check(*e.target);
    const schema::Schema* element = range != nullptr && range->items ? range->items.get() : nullptr;
    scope_.emplace_back(e.iter_var, element);
    for (const auto& a : e.args) check(*a);
    scope_.pop_back();
    return nullptr;
  }

  const std::string& source_;
  const schema::Schema* self_;
  bool root_;
  bool uses_old_self_ = false;
  std::string errors_;
  std::vector<std::pair<std::string, const schema::Schema*>> scope_;
};

}  // namespace

Compiled compile(const std::string& source, const schema::Schema* self_schema, bool resource_root) {
  Compiled out;
  ExprPtr program;
  try {
    program = parse(source);
  } catch (const SyntaxError& e) {
    out.errors = format_diagnostic(source, e.pos(), e.what());
    return out;
  }
  Checker checker(source, self_schema, resource_root);
  checker.check(*program);
  out.errors = checker.errors();
  out.uses_old_self = checker.uses_old_self();
  if (out.errors.empty()) out.program = std::move(program);
  return out;
}

}  // namespace gangplank::apiserver_double::cel
