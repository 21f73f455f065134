#include "cel/evaluator.h"

#include <optional>
#include <utility>

#include "cel/builtins.h"

namespace gangplank::cel {
namespace {

class Evaluator {
 public:
  explicit Evaluator(const Activation& activation) : activation_(activation) {}

  Value Eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral: return e.literal;
      case Expr::Kind::kIdent: return Resolve(e.name);
      case Expr::Kind::kSelect: return Select(e);
      case Expr::Kind::kCall: return Call(e);
      case Expr::Kind::kList: {
        List out;
        for (const auto& a : e.args) out.push_back(Eval(*a));
        return out;
      }
      case Expr::Kind::kMap: return MapLiteral(e);
      case Expr::Kind::kComprehension: return comprehension(e);
    }
    throw EvalError("unknown expression");
  }

 private:
  Value Resolve(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    if (const Value* bound = activation_.Find(name)) return *bound;
    throw EvalError("no such attribute: " + name);
  }

  Value Select(const Expr& e) {
    const Value operand = Eval(*e.target);
    if (!operand.IsMap()) throw EvalError("no such overload");
    const Map& m = operand.map();
    const Value* found = find(m, Value(e.name));
    if (e.test_only) return found != nullptr;
    if (found == nullptr) throw EvalError("no such key: " + e.name);
    return *found;
  }

  Value Call(const Expr& e) {
    if (e.name == "_&&_" || e.name == "_||_") return logical(e, e.name == "_||_");
    if (e.name == "_?_:_") {
      const Value cond = Eval(*e.args[0]);
      if (!cond.is<bool>()) throw EvalError("no such overload");
      return Eval(*e.args[cond.as<bool>() ? 1 : 2]);
    }
    std::vector<Value> args;
    for (const auto& a : e.args) args.push_back(Eval(*a));
    if (e.target == nullptr && IsOperator(e.name)) return ApplyOperator(e.name, args);
    if (e.target == nullptr) return CallFunction(e.name, nullptr, args);
    const Value target = Eval(*e.target);
    return CallFunction(e.name, &target, args);
  }

  // CEL's commutative && and ||: a decisive operand wins even when the other one is an error.
  Value logical(const Expr& e, bool is_or) {
    std::optional<EvalError> error;
    for (const auto& operand : e.args) {
      try {
        const Value v = Eval(*operand);
        if (!v.is<bool>()) throw EvalError("no such overload");
        if (v.as<bool>() == is_or) return is_or;
      } catch (const EvalError& err) {
        if (!error) error = err;
      }
    }
    if (error) throw *error;
    return !is_or;
  }

  Value MapLiteral(const Expr& e) {
    Map m;
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      Value key = Eval(*e.args[i]);
      if (find(m, key) != nullptr) throw EvalError("Failed with repeated key");
      m.entries.emplace_back(std::move(key), Eval(*e.args[i + 1]));
    }
    return m;
  }

  // all/exists/exists_one/map/filter over a list's elements or a map's keys.
  Value comprehension(const Expr& e) {
    const Value range = Eval(*e.target);
    List items;
    if (range.IsList()) {
      items = range.list();
    } else if (range.IsMap()) {
      for (const auto& [k, v] : range.map().entries) items.push_back(k);
    } else {
      throw EvalError("no such overload");
    }
    if (e.name == "all" || e.name == "exists") return quantifier(e, items, e.name == "exists");
    std::size_t matched = 0;
    List out;
    for (const auto& item : items) {
      scope_.emplace_back(e.iter_var, item);
      try {
        const bool keep = e.name == "map" && e.args.size() == 1 ? true : predicate(*e.args[0]);
        if (keep) {
          ++matched;
          if (e.name == "map") out.push_back(Eval(*e.args.back()));
          if (e.name == "filter") out.push_back(item);
        }
      } catch (...) {
        scope_.pop_back();
        throw;
      }
      scope_.pop_back();
    }
    if (e.name == "exists_one") return matched == 1;
    return out;
  }

  Value quantifier(const Expr& e, const List& items, bool exists) {
    std::optional<EvalError> error;
    for (const auto& item : items) {
      scope_.emplace_back(e.iter_var, item);
      try {
        if (predicate(*e.args[0]) == exists) {
          scope_.pop_back();
          return exists;
        }
      } catch (const EvalError& err) {
        if (!error) error = err;
      }
      scope_.pop_back();
    }
    if (error) throw *error;
    return !exists;
  }

  bool predicate(const Expr& e) {
    const Value v = Eval(e);
    if (!v.is<bool>()) throw EvalError("no such overload");
    return v.as<bool>();
  }

  const Activation& activation_;
  std::vector<std::pair<std::string, Value>> scope_;
};

}  // namespace

Value Evaluate(const Expr& expr, const Activation& activation) { return Evaluator(activation).Eval(expr); }

}  // namespace gangplank::cel
