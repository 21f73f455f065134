// Static CEL types of rule expressions, derived from the CRD schema (integer -> int, number -> double,
// object with properties -> object, additionalProperties -> map, int-or-string and untyped -> dyn).
#pragma once

#include <memory>
#include <string>

namespace gangplank::apiserver_double::schema {
struct Schema;
}

namespace gangplank::apiserver_double::cel {

struct Type {
  enum class Kind { kDyn, kNull, kBool, kInt, kUint, kDouble, kString, kList, kMap, kObject };
  Kind kind = Kind::kDyn;
  std::shared_ptr<const Type> element;  // list element, map value
  const schema::Schema* schema = nullptr;  // objects (and where known, lists and maps)

  static Type of(Kind k) { return Type{k, nullptr, nullptr}; }
  static Type List(Type element) { return Type{Kind::kList, std::make_shared<const Type>(std::move(element)), nullptr}; }
  static Type map(Type value) { return Type{Kind::kMap, std::make_shared<const Type>(std::move(value)), nullptr}; }
  static Type FromSchema(const schema::Schema* s);

  bool dyn() const { return kind == Kind::kDyn; }
  bool numeric() const { return kind == Kind::kInt || kind == Kind::kUint || kind == Kind::kDouble; }
  Type elem() const { return element ? *element : Type{}; }
  std::string name() const;  // cel-go spelling: int, list(string), map(string, int)
  bool same(const Type& other) const;  // equal types (dyn matches anything)
};

}  // namespace gangplank::apiserver_double::cel
