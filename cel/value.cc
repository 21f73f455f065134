#include "cel/value.h"

namespace gangplank::cel {

Value::Value(List l) : v(std::make_shared<const List>(std::move(l))) {}
Value::Value(Map m) : v(std::make_shared<const Map>(std::move(m))) {}
Value::Value(Quantity q) : v(std::make_shared<const Quantity>(std::move(q))) {}
Value::Value(Semver s) : v(std::make_shared<const Semver>(std::move(s))) {}

std::string Value::TypeName() const {
  static const char* const names[] = {"null_type", "bool", "int", "uint", "double", "string",
                                      "list", "map", "kubernetes.Quantity", "kubernetes.Semver"};
  return names[v.index()];
}

Map& Map::Set(Value key, Value value) {
  for (auto& [k, v] : entries) {
    if (equal(k, key)) {
      v = std::move(value);
      return *this;
    }
  }
  entries.emplace_back(std::move(key), std::move(value));
  return *this;
}

namespace {

double AsDouble(const Value& x) {
  if (x.is<int64_t>()) return static_cast<double>(x.as<int64_t>());
  if (x.is<uint64_t>()) return static_cast<double>(x.as<uint64_t>());
  return x.as<double>();
}

// Exact comparison of two numbers of any CEL numeric type.
int CompareNumbers(const Value& a, const Value& b) {
  if (a.is<int64_t>() && b.is<uint64_t>()) return a.as<int64_t>() < 0 ? -1 : -CompareNumbers(b, a);
  if (a.is<uint64_t>() && b.is<int64_t>()) {
    if (b.as<int64_t>() < 0) return 1;
    const auto bu = static_cast<uint64_t>(b.as<int64_t>());
    return a.as<uint64_t>() < bu ? -1 : a.as<uint64_t>() > bu;
  }
  if (a.is<int64_t>() && b.is<int64_t>()) return a.as<int64_t>() < b.as<int64_t>() ? -1 : a.as<int64_t>() > b.as<int64_t>();
  if (a.is<uint64_t>() && b.is<uint64_t>()) return a.as<uint64_t>() < b.as<uint64_t>() ? -1 : a.as<uint64_t>() > b.as<uint64_t>();
  const double x = AsDouble(a), y = AsDouble(b);
  return x < y ? -1 : x > y;
}

bool EqualMaps(const Map& a, const Map& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (const auto& [k, v] : a.entries) {
    const Value* other = find(b, k);
    if (other == nullptr || !equal(v, *other)) return false;
  }
  return true;
}

}  // namespace

bool equal(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) return CompareNumbers(a, b) == 0;
  if (a.v.index() != b.v.index()) return false;
  if (a.IsList()) {
    const auto &x = a.list(), &y = b.list();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!equal(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.IsMap()) return EqualMaps(a.map(), b.map());
  if (a.IsQuantity()) return a.quantity() == b.quantity();
  if (a.IsSemver()) return a.semver() == b.semver();
  if (a.is<Null>()) return true;
  if (a.is<bool>()) return a.as<bool>() == b.as<bool>();
  return a.str() == b.str();
}

int Compare(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) return CompareNumbers(a, b);
  if (a.is<std::string>() && b.is<std::string>()) return a.str().compare(b.str()) < 0 ? -1 : a.str() > b.str();
  if (a.is<bool>() && b.is<bool>()) return static_cast<int>(a.as<bool>()) - static_cast<int>(b.as<bool>());
  throw EvalError("no such overload");
}

const Value* find(const Map& map, const Value& key) {
  if (key.is<std::string>()) {  // the common case: only string keys can equal a string
    for (const auto& [k, v] : map.entries) {
      if (k.is<std::string>() && k.str() == key.str()) return &v;
    }
    return nullptr;
  }
  for (const auto& [k, v] : map.entries) {
    if (equal(k, key)) return &v;
  }
  return nullptr;
}

}  // namespace gangplank::cel
