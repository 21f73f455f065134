#include "cel/builtins.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include "cel/double_text.h"
#include "cel/kubernetes_functions.h"
#include "cel/string_functions.h"

namespace gangplank::cel {
namespace {

[[noreturn]] void NoOverload() { throw EvalError("no such overload"); }

int64_t checked(bool overflow, int64_t result) {
  if (overflow) throw EvalError("integer overflow");
  return result;
}

Value IntArith(char op, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
    case '+': overflow = __builtin_add_overflow(a, b, &r); return checked(overflow, r);
    case '-': overflow = __builtin_sub_overflow(a, b, &r); return checked(overflow, r);
    case '*': overflow = __builtin_mul_overflow(a, b, &r); return checked(overflow, r);
    case '/':
      if (b == 0) throw EvalError("division by zero");
      return checked(a == INT64_MIN && b == -1, a / b);
    default:
      if (b == 0) throw EvalError("modulus by zero");
      return checked(a == INT64_MIN && b == -1, a % b);
  }
}

Value UintArith(char op, uint64_t a, uint64_t b) {
  uint64_t r = 0;
  auto check = [](bool overflow, uint64_t v) -> Value {
    if (overflow) throw EvalError("unsigned integer overflow");
    return v;
  };
  bool overflow = false;
  switch (op) {
    case '+': overflow = __builtin_add_overflow(a, b, &r); return check(overflow, r);
    case '-': overflow = __builtin_sub_overflow(a, b, &r); return check(overflow, r);
    case '*': overflow = __builtin_mul_overflow(a, b, &r); return check(overflow, r);
    case '/':
      if (b == 0) throw EvalError("division by zero");
      return a / b;
    default:
      if (b == 0) throw EvalError("modulus by zero");
      return a % b;
  }
}

Value DoubleArith(char op, double a, double b) {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    default: NoOverload();
  }
}

Value arith(char op, const Value& a, const Value& b) {
  if (a.is<int64_t>() && b.is<int64_t>()) return IntArith(op, a.as<int64_t>(), b.as<int64_t>());
  if (a.is<uint64_t>() && b.is<uint64_t>()) return UintArith(op, a.as<uint64_t>(), b.as<uint64_t>());
  if (a.is<double>() && b.is<double>()) return DoubleArith(op, a.as<double>(), b.as<double>());
  if (op == '+' && a.is<std::string>() && b.is<std::string>()) return a.str() + b.str();
  if (op == '+' && a.IsList() && b.IsList()) {
    List out = a.list();
    out.insert(out.end(), b.list().begin(), b.list().end());
    return out;
  }
  NoOverload();
}

int64_t ListIndex(const Value& index, std::size_t size) {
  int64_t i = 0;
  if (index.is<int64_t>()) {
    i = index.as<int64_t>();
  } else if (index.is<uint64_t>()) {
    i = static_cast<int64_t>(index.as<uint64_t>());
  } else if (index.is<double>() && index.as<double>() == std::trunc(index.as<double>())) {
    i = static_cast<int64_t>(index.as<double>());
  } else {
    NoOverload();
  }
  if (i < 0 || i >= static_cast<int64_t>(size)) {
    throw EvalError("index '" + std::to_string(i) + "' out of range in list size '" + std::to_string(size) + "'");
  }
  return i;
}

std::string KeyText(const Value& key) {
  if (key.is<std::string>()) return key.str();
  if (key.is<int64_t>()) return std::to_string(key.as<int64_t>());
  if (key.is<uint64_t>()) return std::to_string(key.as<uint64_t>());
  if (key.is<bool>()) return key.as<bool>() ? "true" : "false";
  return key.TypeName();
}

Value index(const Value& container, const Value& key) {
  if (container.IsList()) return container.list()[static_cast<std::size_t>(ListIndex(key, container.list().size()))];
  if (container.IsMap()) {
    if (const Value* v = find(container.map(), key)) return *v;
    if (container.map().absent) return *container.map().absent;
    throw EvalError("no such key: " + KeyText(key));
  }
  NoOverload();
}

Value ContainsElement(const Value& item, const Value& container) {
  if (container.IsList()) {
    return std::any_of(container.list().begin(), container.list().end(), [&](const Value& v) { return equal(v, item); });
  }
  if (container.IsMap()) return find(container.map(), item) != nullptr;
  NoOverload();
}

// A quantity or a semver on the left of == or != takes only its own kind (or null), as in cel-go, where
// the left operand's Equal decides; built-in kinds on the left are false against any other kind.
void CheckEqualityOverload(const Value& a, const Value& b) {
  if ((a.IsQuantity() || a.IsSemver()) && a.v.index() != b.v.index() && !b.IsNull()) NoOverload();
}

Value relation(const std::string& op, const Value& a, const Value& b) {
  if (op == "_==_" || op == "_!=_") {
    CheckEqualityOverload(a, b);
    return equal(a, b) == (op == "_==_");
  }
  const int c = Compare(a, b);
  if (op == "_<_") return c < 0;
  if (op == "_<=_") return c <= 0;
  if (op == "_>_") return c > 0;
  return c >= 0;
}

int64_t RuneCount(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

Value SizeOf(const Value& v) {
  if (v.is<std::string>()) return RuneCount(v.str());
  if (v.IsList()) return static_cast<int64_t>(v.list().size());
  if (v.IsMap()) return static_cast<int64_t>(v.map().entries.size());
  NoOverload();
}

Value ToInt(const Value& v) {
  if (v.is<int64_t>()) return v;
  if (v.is<uint64_t>()) {
    if (v.as<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) throw EvalError("integer overflow");
    return static_cast<int64_t>(v.as<uint64_t>());
  }
  if (v.is<double>()) {
    const double d = v.as<double>();
    if (!std::isfinite(d) || d <= -9.223372036854775808e18 || d >= 9.223372036854775807e18) throw EvalError("integer overflow");
    return static_cast<int64_t>(d);
  }
  if (v.is<std::string>()) {
    try {
      std::size_t used = 0;
      const long long i = std::stoll(v.str(), &used, 10);
      if (used == v.str().size()) return static_cast<int64_t>(i);
    } catch (const std::exception&) {
    }
    throw EvalError("cannot convert '" + v.str() + "' to int");
  }
  NoOverload();
}

Value ToDouble(const Value& v) {
  if (v.is<double>()) return v;
  if (v.is<int64_t>()) return static_cast<double>(v.as<int64_t>());
  if (v.is<uint64_t>()) return static_cast<double>(v.as<uint64_t>());
  if (v.is<std::string>()) {
    try {
      std::size_t used = 0;
      const double d = std::stod(v.str(), &used);
      if (used == v.str().size()) return d;
    } catch (const std::exception&) {
    }
    throw EvalError("cannot convert '" + v.str() + "' to double");
  }
  NoOverload();
}

Value to_string(const Value& v) {
  if (v.is<std::string>()) return v;
  if (v.is<int64_t>()) return std::to_string(v.as<int64_t>());
  if (v.is<uint64_t>()) return std::to_string(v.as<uint64_t>());
  if (v.is<double>()) return DoubleText(v.as<double>());
  if (v.is<bool>()) return std::string(v.as<bool>() ? "true" : "false");
  NoOverload();
}

const std::string& StrArg(const std::vector<Value>& args, std::size_t i) {
  if (i >= args.size() || !args[i].is<std::string>()) NoOverload();
  return args[i].str();
}

Value ListMethod(const std::string& name, const List& list, const std::vector<Value>& args) {
  if (name == "join") {
    const std::string sep = args.empty() ? "" : StrArg(args, 0);
    std::string out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is<std::string>()) NoOverload();
      out += (i ? sep : "") + list[i].str();
    }
    return out;
  }
  if ((name == "min" || name == "max") && args.empty()) {
    if (list.empty()) throw EvalError(name + " called on empty list");
    Value best = list[0];
    for (const auto& v : list) {
      if ((Compare(v, best) < 0) == (name == "min") && !equal(v, best)) best = v;
    }
    return best;
  }
  if (name == "isSorted" && args.empty()) {
    for (std::size_t i = 1; i < list.size(); ++i) {
      if (Compare(list[i - 1], list[i]) > 0) return false;
    }
    return true;
  }
  if (name == "sum" && args.empty()) {
    Value total = list.empty() ? Value(int64_t{0}) : list[0];
    for (std::size_t i = 1; i < list.size(); ++i) total = arith('+', total, list[i]);
    if (!total.IsNumber()) NoOverload();
    return total;
  }
  if ((name == "indexOf" || name == "lastIndexOf") && args.size() == 1) {
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::size_t i = name == "indexOf" ? k : list.size() - 1 - k;
      if (equal(list[i], args[0])) return static_cast<int64_t>(i);
    }
    return int64_t{-1};
  }
  NoOverload();
}

}  // namespace

bool IsOperator(const std::string& name) {
  static const std::set<std::string> ops = {"_+_", "_-_", "_*_", "_/_", "_%_", "_==_", "_!=_", "_<_", "_<=_",
                                            "_>_", "_>=_", "_[_]", "@in", "!_", "-_", "_&&_", "_||_", "_?_:_"};
  return ops.count(name) > 0;
}

bool IsBuiltinFunction(const std::string& name, bool as_method) {
  static const std::set<std::string> globals = {"size", "int", "uint", "double", "string", "bool", "dyn", "matches"};
  static const std::set<std::string> list_methods = {"join", "min", "max", "isSorted", "sum", "indexOf", "lastIndexOf"};
  if (IsKubernetesFunction(name, as_method)) return true;
  if (!as_method) return globals.count(name) > 0;
  return name == "size" || IsStringMethod(name) || list_methods.count(name) > 0;
}

Value ApplyOperator(const std::string& name, const std::vector<Value>& a) {
  if (name == "!_") {
    if (!a[0].is<bool>()) NoOverload();
    return !a[0].as<bool>();
  }
  if (name == "-_") {
    if (a[0].is<int64_t>()) return IntArith('-', 0, a[0].as<int64_t>());
    if (a[0].is<double>()) return -a[0].as<double>();
    NoOverload();
  }
  if (name == "_[_]") return index(a[0], a[1]);
  if (name == "@in") return ContainsElement(a[0], a[1]);
  if (name.size() == 3 && std::string("+-*/%").find(name[1]) != std::string::npos) return arith(name[1], a[0], a[1]);
  return relation(name, a[0], a[1]);
}

Value CallFunction(const std::string& name, const Value* target, const std::vector<Value>& args) {
  if (target == nullptr) {
    if (args.size() != 1 && name != "matches" && !IsKubernetesFunction(name, false)) NoOverload();
    if (name == "size") return SizeOf(args[0]);
    if (name == "int") return ToInt(args[0]);
    if (name == "double") return ToDouble(args[0]);
    if (name == "string") return to_string(args[0]);
    if (name == "dyn") return args[0];
    if (name == "uint") {
      const Value i = args[0].is<uint64_t>() ? args[0] : ToInt(args[0]);
      if (i.is<int64_t>() && i.as<int64_t>() < 0) throw EvalError("unsigned integer overflow");
      return i.is<uint64_t>() ? i : Value(static_cast<uint64_t>(i.as<int64_t>()));
    }
    if (name == "bool" && args[0].is<bool>()) return args[0];
    if (name == "matches" && args.size() == 2) return Matches(StrArg(args, 0), StrArg(args, 1));
    if (IsKubernetesFunction(name, false)) return KubernetesFunction(name, args);
    NoOverload();
  }
  if (name == "size" && args.empty()) return SizeOf(*target);
  if (target->is<std::string>()) return StringMethod(name, target->str(), args);
  if (target->IsList()) return ListMethod(name, target->list(), args);
  if (target->IsQuantity()) return QuantityMethod(name, target->quantity(), args);
  if (target->IsSemver()) return SemverMethod(name, target->semver(), args);
  NoOverload();
}

}  // namespace gangplank::cel
