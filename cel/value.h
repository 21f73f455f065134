// CEL runtime values: null, bool, int, uint, double, string, list, map, and Kubernetes' quantity and
// semver. Lists, maps, quantities and versions are shared and immutable, so copying a Value is cheap.
// Values are built from C++ directly: Value(Map{{"driver", "gpu.nvidia.com"}, {"cores", 2}}).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cel/quantity.h"
#include "cel/semver.h"

namespace gangplank::cel {

struct Value;
struct Map;
using List = std::vector<Value>;
struct Null {};

struct Value {
  std::variant<Null, bool, int64_t, uint64_t, double, std::string, std::shared_ptr<const List>, std::shared_ptr<const Map>,
               std::shared_ptr<const Quantity>, std::shared_ptr<const Semver>>
      v;

  Value() = default;
  Value(bool b) : v(b) {}                      // NOLINT: literal-like construction
  Value(int i) : v(int64_t{i}) {}              // NOLINT
  Value(int64_t i) : v(i) {}                   // NOLINT
  Value(uint64_t u) : v(u) {}                  // NOLINT
  Value(double d) : v(d) {}                    // NOLINT
  Value(const char* s) : v(std::string(s)) {}  // NOLINT
  Value(std::string s) : v(std::move(s)) {}    // NOLINT
  Value(List l);                               // NOLINT
  Value(Map m);                                // NOLINT
  Value(Quantity q);                           // NOLINT
  Value(Semver s);                             // NOLINT

  template <class T> bool is() const { return std::holds_alternative<T>(v); }
  template <class T> const T& as() const { return std::get<T>(v); }
  bool IsNull() const { return is<Null>(); }
  bool IsList() const { return is<std::shared_ptr<const List>>(); }
  bool IsMap() const { return is<std::shared_ptr<const Map>>(); }
  bool IsQuantity() const { return is<std::shared_ptr<const Quantity>>(); }
  bool IsSemver() const { return is<std::shared_ptr<const Semver>>(); }
  bool IsNumber() const { return is<int64_t>() || is<uint64_t>() || is<double>(); }
  const List& list() const { return *as<std::shared_ptr<const List>>(); }
  const Map& map() const { return *as<std::shared_ptr<const Map>>(); }
  const Quantity& quantity() const { return *as<std::shared_ptr<const Quantity>>(); }
  const Semver& semver() const { return *as<std::shared_ptr<const Semver>>(); }
  const std::string& str() const { return as<std::string>(); }
  std::string TypeName() const;  // "int", "string", "list", "kubernetes.Quantity", ...
};

struct Map {
  std::vector<std::pair<Value, Value>> entries;
  // What selecting or indexing a key the map does not hold gives, when set (unset: "no such key: k").
  // DRA's device.attributes answers an unknown domain with an empty map. has() finds it too, as cel-go's
  // lookup does; `in`, size() and iteration see the entries only.
  std::optional<Value> absent;

  Map() = default;
  Map(std::initializer_list<std::pair<Value, Value>> init) : entries(init) {}
  // Adds an entry, or replaces the value of an equal key.
  Map& Set(Value key, Value value);
};

// An evaluation error (cel-go's error values): "no such key: x", "division by zero", "no such overload".
class EvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool equal(const Value& a, const Value& b);
// Cross-type numeric and same-type ordering; throws EvalError("no such overload") otherwise.
int Compare(const Value& a, const Value& b);
// Map lookup by key (with CEL's numeric key equality); null when absent (Map::absent is not consulted).
const Value* find(const Map& map, const Value& key);

}  // namespace gangplank::cel
