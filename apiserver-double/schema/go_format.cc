#include "apiserver-double/schema/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cel/double_text.h"

namespace gangplank::apiserver_double::schema {
namespace {

// Length of the UTF-8 sequence starting at `i`, or 0 when it is not valid UTF-8.
std::size_t Utf8Length(const std::string& s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

std::string HexEscape(unsigned value, int digits, char kind) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\%c%0*x", kind, digits, value);
  return buf;
}

void AppendEscapedAscii(std::string& out, char c) {
  switch (c) {
    case '\a': out += "\\a"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\v': out += "\\v"; return;
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    default: break;
  }
  const auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u == 0x7f) {
    out += HexEscape(u, 2, 'x');
  } else {
    out.push_back(c);
  }
}

}  // namespace

std::string GoQuote(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = Utf8Length(text, i);
    if (n == 0) {  // invalid UTF-8: Go escapes the byte
      out += HexEscape(static_cast<unsigned char>(text[i]), 2, 'x');
      ++i;
    } else if (n == 1) {
      AppendEscapedAscii(out, text[i]);
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  out.push_back('"');
  return out;
}

// Go's %v of a float64 is %g with the shortest digits, which is also what CEL's string(double) writes.
std::string GoFloat(double value) { return gangplank::cel::DoubleText(value); }

std::string GoPlain(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_float()) return GoFloat(value.get<double>());
  if (value.is_number()) return value.dump();
  return GoSyntax(value);
}

namespace {

// encoding/json's float64: 'f' with the shortest digits, 'e' (exponent of at least one digit) outside
// [1e-6, 1e21).
std::string json_float(double value) {
  if (!std::isfinite(value)) return "null";  // Marshal fails; never in a decoded object
  const double magnitude = std::fabs(value);
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, exponent ? std::chars_format::scientific : std::chars_format::fixed);
  std::string out(buf, res.ptr);
  const std::size_t n = out.size();
  if (exponent && n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') out.erase(n - 2, 1);  // e-07 -> e-7
  return out;
}

// encoding/json's string: HTML characters and U+2028/U+2029 escaped, invalid UTF-8 as U+FFFD.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (n > 1) {
      const std::string rune = text.substr(i, n);
      out += rune == "\xe2\x80\xa8" ? "\\u2028" : rune == "\xe2\x80\xa9" ? "\\u2029" : rune;
      i += n;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
          out += HexEscape(c, 4, 'u');
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  return out + "\"";
}

}  // namespace

std::string GoJson(const nlohmann::json& value) {
  if (value.is_string()) return json_string(value.get<std::string>());
  if (value.is_number_float()) return json_float(value.get<double>());
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? "," : "") + GoJson(value[i]);
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    for (auto it = value.begin(); it != value.end(); ++it) {  // nlohmann keeps keys sorted, as Marshal writes them
      out += (it == value.begin() ? "" : ",") + json_string(it.key()) + ":" + GoJson(it.value());
    }
    return out + "}";
  }
  return value.dump();  // null, booleans, integers
}

std::string GoSyntax(const nlohmann::json& value) {
  if (value.is_null()) return "interface {}(nil)";
  if (value.is_string()) return GoQuote(value.get<std::string>());
  if (value.is_array()) {
    std::string out = "[]interface {}{";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + GoSyntax(value[i]);
    return out + "}";
  }
  if (value.is_object()) {
    std::string out = "map[string]interface {}{";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {  // nlohmann keeps keys sorted, as %#v prints them
      out += (first ? "" : ", ") + GoQuote(it.key()) + ":" + GoSyntax(it.value());
      first = false;
    }
    return out + "}";
  }
  return GoPlain(value);
}

}  // namespace gangplank::apiserver_double::schema
