#include "apiserver-double/cel/types.h"

#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::cel {

Type Type::FromSchema(const schema::Schema* s) {
  if (s == nullptr || s->int_or_string) return Type{};
  if (s->type == "integer") return of(Kind::kInt);
  if (s->type == "number") return of(Kind::kDouble);
  if (s->type == "string") return of(Kind::kString);
  if (s->type == "boolean") return of(Kind::kBool);
  if (s->type == "array") {
    Type t = List(FromSchema(s->items.get()));
    t.schema = s;
    return t;
  }
  if (s->type == "object" && s->additional_properties) {
    Type t = map(FromSchema(s->additional_properties.get()));
    t.schema = s;
    return t;
  }
  if (s->type == "object" && !s->properties.empty()) return Type{Kind::kObject, nullptr, s};
  return Type{};
}

std::string Type::name() const {
  switch (kind) {
    case Kind::kNull: return "null_type";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kUint: return "uint";
    case Kind::kDouble: return "double";
    case Kind::kString: return "string";
    case Kind::kList: return "list(" + elem().name() + ")";
    case Kind::kMap: return "map(string, " + elem().name() + ")";
    case Kind::kObject: return "object";
    case Kind::kDyn: break;
  }
  return "dyn";
}

bool Type::same(const Type& other) const {
  if (dyn() || other.dyn()) return true;
  if (kind != other.kind) return false;
  if (kind == Kind::kList || kind == Kind::kMap) return elem().same(other.elem());
  return kind != Kind::kObject || schema == other.schema;
}

}  // namespace gangplank::apiserver_double::cel
