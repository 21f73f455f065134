// CEL runtime values: null, bool, int, uint, double, string, list and map.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gangplank::cel {

struct Value;
using List = std::vector<Value>;
struct Map {
  std::vector<std::pair<Value, Value>> entries;
};
struct Null {};

struct Value {
  std::variant<Null, bool, int64_t, uint64_t, double, std::string, std::shared_ptr<const List>, std::shared_ptr<const Map>> v;

  Value() = default;
  Value(bool b) : v(b) {}                      // NOLINT: literal-like construction
  Value(int64_t i) : v(i) {}                   // NOLINT
  Value(uint64_t u) : v(u) {}                  // NOLINT
  Value(double d) : v(d) {}                    // NOLINT
  Value(std::string s) : v(std::move(s)) {}    // NOLINT
  Value(List l) : v(std::make_shared<const List>(std::move(l))) {}  // NOLINT
  Value(Map m) : v(std::make_shared<const Map>(std::move(m))) {}    // NOLINT

  template <class T> bool is() const { return std::holds_alternative<T>(v); }
  template <class T> const T& as() const { return std::get<T>(v); }
  bool IsNull() const { return is<Null>(); }
  bool IsList() const { return is<std::shared_ptr<const List>>(); }
  bool IsMap() const { return is<std::shared_ptr<const Map>>(); }
  bool IsNumber() const { return is<int64_t>() || is<uint64_t>() || is<double>(); }
  const List& list() const { return *as<std::shared_ptr<const List>>(); }
  const Map& map() const { return *as<std::shared_ptr<const Map>>(); }
  const std::string& str() const { return as<std::string>(); }
  std::string TypeName() const;  // "int", "string", "list", ...
};

// An evaluation error (cel-go's error values): "no such key: x", "division by zero", "no such overload".
class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool equal(const Value& a, const Value& b);
// Cross-type numeric and same-type ordering; throws EvalError("no such overload") otherwise.
int Compare(const Value& a, const Value& b);
// Map lookup by key (with CEL's numeric key equality); null when absent.
const Value* find(const Map& map, const Value& key);

}  // namespace gangplank::cel
