#include "apiserver-double/cel/value.h"

#include <cmath>
#include <set>

#include "apiserver-double/schema/schema.h"

namespace gangplank::apiserver_double::cel {

using nlohmann::json;

std::string Value::TypeName() const {
  static const char* const names[] = {"null_type", "bool", "int", "uint", "double", "string", "list", "map"};
  return names[v.index()];
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

Value ObjectFromJson(const json& value, const schema::Schema* s) {
  Map m;
  if (s != nullptr && s->additional_properties) {
    for (auto it = value.begin(); it != value.end(); ++it) m.entries.emplace_back(it.key(), from_json(it.value(), s->additional_properties.get()));
    return m;
  }
  m.object = s != nullptr;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const schema::Schema* prop = s == nullptr ? nullptr : s->property(it.key());
    if (s != nullptr && prop == nullptr) continue;  // unknown fields are invisible to rules
    m.entries.emplace_back(it.key(), from_json(it.value(), prop));
  }
  return m;
}

Value NumberFromJson(const json& value, const schema::Schema* s) {
  const bool wants_double = s != nullptr && s->type == "number";
  if (wants_double || (value.is_number_float() && !(s != nullptr && (s->type == "integer" || s->int_or_string)))) {
    return value.get<double>();
  }
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return value.get<uint64_t>();
  return static_cast<int64_t>(value.is_number_float() ? std::trunc(value.get<double>()) : value.get<int64_t>());
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
  for (const auto& [k, v] : map.entries) {
    if (equal(k, key)) return &v;
  }
  return nullptr;
}

Value from_json(const json& value, const schema::Schema* s) {
  switch (value.type()) {
    case json::value_t::null: return Value();
    case json::value_t::boolean: return value.get<bool>();
    case json::value_t::string: return value.get<std::string>();
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return NumberFromJson(value, s);
    case json::value_t::array: {
      List l;
      for (const auto& item : value) l.push_back(from_json(item, s == nullptr ? nullptr : s->items.get()));
      return l;
    }
    case json::value_t::object: return ObjectFromJson(value, s);
    default: return Value();
  }
}

std::string UnescapeProperty(const std::string& name) {
  static const std::set<std::string> reserved = {
      "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
      "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"};
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__") && reserved.count(name.substr(2, name.size() - 4))) {
    return name.substr(2, name.size() - 4);
  }
  static const std::pair<const char*, const char*> escapes[] = {
      {"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}};
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    bool replaced = false;
    for (const auto& [from, to] : escapes) {
      if (name.compare(i, std::char_traits<char>::length(from), from) == 0) {
        out += to;
        i += std::char_traits<char>::length(from);
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(name[i++]);
  }
  return out;
}

}  // namespace gangplank::apiserver_double::cel
