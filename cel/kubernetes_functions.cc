#include "cel/kubernetes_functions.h"

#include <set>

namespace gangplank::cel {
namespace {

[[noreturn]] void NoOverload() { throw EvalError("no such overload"); }

const std::string& StrArg(const std::vector<Value>& args, std::size_t i) {
  if (i >= args.size() || !args[i].is<std::string>()) NoOverload();
  return args[i].str();
}

bool NormalizeArg(const std::vector<Value>& args) {
  if (args.size() == 1) return false;
  if (args.size() != 2 || !args[1].is<bool>()) NoOverload();
  return args[1].as<bool>();
}

const Quantity& QuantityArg(const std::vector<Value>& args) {
  if (args.size() != 1 || !args[0].IsQuantity()) NoOverload();
  return args[0].quantity();
}

const Semver& SemverArg(const std::vector<Value>& args) {
  if (args.size() != 1 || !args[0].IsSemver()) NoOverload();
  return args[0].semver();
}

}  // namespace

bool IsKubernetesFunction(const std::string& name, bool as_method) {
  static const std::set<std::string> globals = {"quantity", "isQuantity", "semver", "isSemver", "sign"};
  static const std::set<std::string> methods = {"compareTo", "isGreaterThan", "isLessThan", "add", "sub",
                                                "asInteger", "isInteger", "asApproximateFloat", "sign",
                                                "major", "minor", "patch"};
  return as_method ? methods.count(name) > 0 : globals.count(name) > 0;
}

Value KubernetesFunction(const std::string& name, const std::vector<Value>& args) {
  if (name == "quantity" && args.size() == 1) return Quantity::Parse(StrArg(args, 0));
  if (name == "isQuantity" && args.size() == 1) return Quantity::TryParse(StrArg(args, 0)).has_value();
  if (name == "semver" && !args.empty()) return Semver::Parse(StrArg(args, 0), NormalizeArg(args));
  if (name == "isSemver" && !args.empty()) return Semver::TryParse(StrArg(args, 0), NormalizeArg(args)).has_value();
  if (name == "sign") return static_cast<int64_t>(QuantityArg(args).Sign());
  NoOverload();
}

Value QuantityMethod(const std::string& name, const Quantity& q, const std::vector<Value>& args) {
  if (name == "compareTo") return static_cast<int64_t>(q.Compare(QuantityArg(args)));
  if (name == "isGreaterThan") return q.Compare(QuantityArg(args)) > 0;
  if (name == "isLessThan") return q.Compare(QuantityArg(args)) < 0;
  if (name == "add" || name == "sub") {
    if (args.size() != 1) NoOverload();
    const Quantity other = args[0].is<int64_t>() ? Quantity(args[0].as<int64_t>()) : QuantityArg(args);
    return name == "add" ? q.Add(other) : q.Sub(other);
  }
  if (!args.empty()) NoOverload();
  if (name == "sign") return static_cast<int64_t>(q.Sign());
  if (name == "isInteger") return q.AsInt64().has_value();
  if (name == "asApproximateFloat") return q.AsApproximateDouble();
  if (name == "asInteger") {
    const std::optional<int64_t> i = q.AsInt64();
    if (!i) throw EvalError("cannot convert value to integer");
    return *i;
  }
  NoOverload();
}

Value SemverMethod(const std::string& name, const Semver& v, const std::vector<Value>& args) {
  if (name == "compareTo") return static_cast<int64_t>(v.Compare(SemverArg(args)));
  if (name == "isGreaterThan") return v.Compare(SemverArg(args)) > 0;
  if (name == "isLessThan") return v.Compare(SemverArg(args)) < 0;
  if (!args.empty()) NoOverload();
  if (name == "major") return static_cast<int64_t>(v.major());
  if (name == "minor") return static_cast<int64_t>(v.minor());
  if (name == "patch") return static_cast<int64_t>(v.patch());
  NoOverload();
}

}  // namespace gangplank::cel
