#include "cel/evaluator.h"

#include <optional>
#include <utility>

#include "cel/builtins.h"
#include "cel/string_functions.h"

namespace gangplank::cel {
namespace {

// What a function's argument or result costs beyond its call: its elements, a tenth of its bytes.
uint64_t Weight(const Value& v) {
  if (v.is<std::string>()) return v.str().size() / 10;
  if (v.IsList()) return v.list().size();
  if (v.IsMap()) return v.map().entries.size();
  return 0;
}

class Evaluator {
 public:
  Evaluator(const Activation& activation, const EvalOptions& options) : activation_(activation), options_(options) {}

  Value Eval(const Expr& e) {
    Charge(1);
    switch (e.kind) {
      case Expr::Kind::kLiteral: return e.literal;
      case Expr::Kind::kIdent: return Resolve(e.name);
      case Expr::Kind::kSelect: return Select(e);
      case Expr::Kind::kCall: return Call(e);
      case Expr::Kind::kList: {
        List out;
        out.reserve(e.args.size());
        for (const auto& a : e.args) out.push_back(Eval(*a));
        return out;
      }
      case Expr::Kind::kMap: return MapLiteral(e);
      case Expr::Kind::kComprehension: return comprehension(e);
      case Expr::Kind::kBind: return Bind(e);
    }
    throw EvalError("unknown expression");
  }

 private:
  void Charge(uint64_t steps) {
    steps_ += steps;
    if (steps_ > options_.max_steps) throw EvalError("operation cancelled: actual cost limit exceeded");
  }

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
    if (e.test_only) return found != nullptr || m.absent.has_value();
    if (found != nullptr) return *found;
    if (m.absent) return *m.absent;
    throw EvalError("no such key: " + e.name);
  }

  Value Call(const Expr& e) {
    if (e.name == "_&&_" || e.name == "_||_") return logical(e, e.name == "_||_");
    if (e.name == "_?_:_") {
      const Value cond = Eval(*e.args[0]);
      if (!cond.is<bool>()) throw EvalError("no such overload");
      return Eval(*e.args[cond.as<bool>() ? 1 : 2]);
    }
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (const auto& a : e.args) args.push_back(Eval(*a));
    std::optional<Value> target;
    if (e.target) target = Eval(*e.target);
    if (!Walks(e, args)) return Apply(e, target ? &*target : nullptr, args);
    uint64_t weight = target ? Weight(*target) : 0;
    for (const auto& a : args) weight += Weight(a);
    Charge(weight);
    Value result = Apply(e, target ? &*target : nullptr, args);
    Charge(Weight(result));
    return result;
  }

  // Whether a call walks or builds its operands (and is charged for their size): indexing, size() and a
  // map's `in` look up in constant time.
  static bool Walks(const Expr& e, const std::vector<Value>& args) {
    if (e.name == "_[_]" || e.name == "size") return false;
    return !(e.name == "@in" && args.size() == 2 && args[1].IsMap());
  }

  Value Apply(const Expr& e, const Value* target, const std::vector<Value>& args) {
    if (e.name == "matches" && options_.patterns != nullptr) {
      if (const auto it = options_.patterns->find(&e); it != options_.patterns->end()) {
        const Value& subject = target != nullptr ? *target : args[0];
        if (!subject.is<std::string>()) throw EvalError("no such overload");
        return Matches(subject.str(), it->second);
      }
    }
    if (target == nullptr && IsOperator(e.name)) return ApplyOperator(e.name, args);
    return CallFunction(e.name, target, args);
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
        if (IsCancelled(err)) throw;
        if (!error) error = err;
      }
    }
    if (error) throw *error;
    return !is_or;
  }

  static bool IsCancelled(const EvalError& err) { return std::string_view(err.what()).starts_with("operation cancelled"); }

  Value MapLiteral(const Expr& e) {
    Map m;
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      Value key = Eval(*e.args[i]);
      if (find(m, key) != nullptr) throw EvalError("Failed with repeated key");
      m.entries.emplace_back(std::move(key), Eval(*e.args[i + 1]));
    }
    return m;
  }

  // cel.bind(name, value, body): body with `name` bound to value.
  Value Bind(const Expr& e) {
    scope_.emplace_back(e.iter_var, Eval(*e.target));
    try {
      Value result = Eval(*e.args[0]);
      scope_.pop_back();
      return result;
    } catch (...) {
      scope_.pop_back();
      throw;
    }
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
        if (IsCancelled(err)) {
          scope_.pop_back();
          throw;
        }
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
  const EvalOptions& options_;
  std::vector<std::pair<std::string, Value>> scope_;
  uint64_t steps_ = 0;
};

}  // namespace

Value Evaluate(const Expr& expr, const Activation& activation, const EvalOptions& options) {
  return Evaluator(activation, options).Eval(expr);
}

}  // namespace gangplank::cel
