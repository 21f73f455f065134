#include "apiserver-double/cel/schema_values.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <set>

#include "apiserver-double/schema/schema.h"
#include "cel/json_value.h"

namespace gangplank::apiserver_double::cel {

using gangplank::cel::Map;
using gangplank::cel::Value;
using nlohmann::json;

namespace {

const std::set<std::string>& ReservedWords() {
  static const std::set<std::string> reserved = {
      "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
      "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"};
  return reserved;
}

Value ObjectFromJson(const json& value, const schema::Schema& s) {
  Map m;
  if (s.additional_properties) {
    for (auto it = value.begin(); it != value.end(); ++it) m.entries.emplace_back(it.key(), from_json(it.value(), s.additional_properties.get()));
    return m;
  }
  for (auto it = value.begin(); it != value.end(); ++it) {
    const schema::Schema* prop = s.property(it.key());
    const std::optional<std::string> name = EscapeProperty(it.key());
    if (prop == nullptr || !name) continue;  // unknown fields are invisible to rules
    m.entries.emplace_back(*name, from_json(it.value(), prop));
  }
  return m;
}

Value NumberFromJson(const json& value, const schema::Schema& s) {
  if (s.type == "number" || (value.is_number_float() && s.type != "integer" && !s.int_or_string)) return value.get<double>();
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return value.get<uint64_t>();
  return static_cast<int64_t>(value.is_number_float() ? std::trunc(value.get<double>()) : value.get<int64_t>());
}

}  // namespace

Value from_json(const json& value, const schema::Schema* s) {
  if (s == nullptr) return gangplank::cel::FromJson(value);
  switch (value.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return NumberFromJson(value, *s);
    case json::value_t::array: {
      gangplank::cel::List l;
      for (const auto& item : value) l.push_back(from_json(item, s->items.get()));
      return l;
    }
    case json::value_t::object: return ObjectFromJson(value, *s);
    default: return gangplank::cel::FromJson(value);
  }
}

std::optional<std::string> EscapeProperty(const std::string& property) {
  if (property.empty() || (property[0] >= '0' && property[0] <= '9')) return std::nullopt;
  if (ReservedWords().count(property)) return "__" + property + "__";
  std::string out;
  for (std::size_t i = 0; i < property.size(); ++i) {
    const char c = property[i];
    if (c == '_' && i + 1 < property.size() && property[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      out.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string UnescapeProperty(const std::string& name) {
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__") && ReservedWords().count(name.substr(2, name.size() - 4))) {
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
