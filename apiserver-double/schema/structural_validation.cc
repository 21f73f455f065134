#include "apiserver-double/schema/structural_validation.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "apiserver-double/schema/go_format.h"

namespace gangplank::apiserver_double::schema {

using nlohmann::json;

namespace {

// kube-openapi names the value by a dotted path ("spec.queues[0].weight"); apiextensions turns it into
// the field by trimming a leading dot, and a missing path prints as a nil field.Path does.
std::string FieldOf(const std::string& name) {
  if (name.empty() || name == ".") return "<nil>";
  return name[0] == '.' ? name.substr(1) : name;
}

std::string PropertyPath(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

bool contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

std::string Join(const std::vector<std::string>& list, const char* sep) {
  std::string out;
  for (const auto& v : list) out += (out.empty() ? "" : sep) + v;
  return out;
}

// JSON type and Go format of a decoded value, as kube-openapi's typeValidator infers them.
std::pair<std::string, std::string> SchemaInfo(const json& data) {
  if (data.is_boolean()) return {"boolean", ""};
  if (data.is_string()) return {"string", ""};
  if (data.is_number_float()) return {"number", "float64"};
  if (data.is_number()) return {"integer", "int64"};
  if (data.is_array()) return {"array", ""};
  return {"object", ""};
}

// How a number limit prints: as an int64 when the data is an integer (kube-openapi's *Int checks).
std::string LimitText(double limit, const json& data) {
  if (data.is_number_float()) return GoFloat(limit);
  return std::to_string(static_cast<long long>(limit));
}

bool EnumEqual(const json& data, const json& candidate) {
  if (data.is_number() && candidate.is_number()) {
    if (candidate.is_number_float()) return data.get<double>() == candidate.get<double>();
    return static_cast<long long>(data.get<double>()) == candidate.get<long long>();
  }
  return data == candidate;
}

std::string EnumText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float() && IsIntegral(v) && std::fabs(v.get<double>()) < 1e21) {
    return std::to_string(static_cast<long long>(v.get<double>()));
  }
  return v.dump();
}

bool MultipleOf(const json& data, double factor) {
  if (!data.is_number_float()) {
    const auto f = static_cast<long long>(factor);
    return f == 0 || data.get<long long>() % f == 0;
  }
  const double m = factor < 1 ? 1 / factor * data.get<double>() : data.get<double>() / factor;
  return std::isfinite(m) && std::fabs(m - std::round(m)) < 1e-9;
}

bool ValidDateTime(const std::string& s) {
  static const std::regex re(R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$)");
  return std::regex_match(s, re);
}

// A schema's format as validation sees it: apiextensions 1.35 drops every format it does not support
// (StripUnsupportedFormatsPostProcessorForVersion), int32, int64, float and double included.
std::string KeptFormat(const std::string& format) {
  static const std::set<std::string> supported = {
      "bsonobjectid", "uri",      "email", "hostname", "ipv4",   "ipv6",       "cidr",     "mac",
      "uuid",         "uuid3",    "uuid4", "uuid5",    "isbn",   "isbn10",     "isbn13",   "creditcard",
      "ssn",          "hexcolor", "rgbcolor", "byte",  "password", "date",     "duration", "datetime",
      "k8sshortname", "k8slongname"};
  std::string normalized = format;
  normalized.erase(std::remove(normalized.begin(), normalized.end(), '-'), normalized.end());
  return supported.count(normalized) ? format : "";
}

// The string formats apiextensions keeps (others are stripped and so never checked).
std::optional<bool> FormatOk(const std::string& format, const std::string& s) {
  if (format == "date-time" || format == "datetime") return ValidDateTime(s);
  if (format == "date") return std::regex_match(s, std::regex(R"(^\d{4}-\d{2}-\d{2}$)"));
  if (format == "uuid") {
    return std::regex_match(s, std::regex(R"(^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$)"));
  }
  if (format == "ipv4") {
    return std::regex_match(s, std::regex(R"(^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$)"));
  }
  return std::nullopt;
}

class Validator {
 public:
  explicit Validator(FieldErrors& out) : out_(out) {}

  void value(const Schema& s, const json& data, const std::string& path, const json* old) {
    if (old != nullptr && *old == data) return;  // ratcheting: an unchanged value keeps validating
    if (data.is_null()) {
      NullValue(s, path);
      return;
    }
    type(s, data, path);
    junctors(s, data, path);
    if (data.is_string()) string(s, data, path);
    if (data.is_number()) number(s, data, path);
    if (data.is_array()) array(s, data, path, old);
    enumeration(s, data, path);
    if (data.is_object()) object(s, data, path, old);
  }

 private:
  void NullValue(const Schema& s, const std::string& path) {
    const auto types = s.types();
    if (!types.empty() && !s.nullable) {
      out_.push_back(TypeInvalid(FieldOf(path), "null",
                                  path + " in body must be of type " + Join(types, ",") + ": " + GoQuote("null")));
    }
    enumeration(s, nullptr, path);
  }

  void type(const Schema& s, const json& data, const std::string& path) {
    const auto types = s.types();
    const std::string kept = KeptFormat(s.format);
    if (types.empty() && kept.empty()) return;
    const auto [sch_type, format] = SchemaInfo(data);
    const bool float_int = sch_type == "number" && IsIntegral(data) && contains(types, "integer");
    const bool int_float = sch_type == "integer" && contains(types, "number");
    const bool stringish = data.is_string() || data.is_array();
    if (!stringish && !kept.empty() && !(contains(types, sch_type) || format == kept || float_int || int_float)) {
      out_.push_back(TypeInvalid(FieldOf(path), format,
                                  path + " in body must be of type " + kept + ": " + GoQuote(format)));
      return;
    }
    if (!contains(types, "number") && !contains(types, "integer") && !kept.empty() && stringish) return;
    if (!(contains(types, sch_type) || float_int || int_float)) {
      out_.push_back(TypeInvalid(FieldOf(path), sch_type,
                                  path + " in body must be of type " + Join(types, ",") + ": " + GoQuote(sch_type)));
    }
  }

  void string(const Schema& s, const json& data, const std::string& path) {
    const auto& text = data.get_ref<const std::string&>();
    const auto runes = static_cast<int64_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
    if (s.max_length && runes > *s.max_length) out_.push_back(TooLong(FieldOf(path), *s.max_length));
    if (s.min_length && runes < *s.min_length) {
      out_.push_back(Invalid(FieldOf(path), data,
                             path + " in body should be at least " + std::to_string(*s.min_length) + " chars long"));
    }
    if (s.pattern && (!s.pattern_regex || !std::regex_search(text, *s.pattern_regex))) {
      out_.push_back(Invalid(FieldOf(path), data, path + " in body should match '" + *s.pattern + "'"));
    }
    if (auto ok = FormatOk(s.format, text); ok && !*ok) {
      out_.push_back(TypeInvalid(FieldOf(path), data,
                                  path + " in body must be of type " + s.format + ": " + GoQuote(text)));
    }
  }

  void number(const Schema& s, const json& data, const std::string& path) {
    const double v = data.get<double>();
    const bool integer = !data.is_number_float();
    if (s.multiple_of && *s.multiple_of > 0 && !MultipleOf(data, *s.multiple_of)) {
      out_.push_back(Invalid(FieldOf(path), data,
                             path + " in body should be a multiple of " + LimitText(*s.multiple_of, data)));
    }
    if (s.maximum) {
      const double max = integer ? std::trunc(*s.maximum) : *s.maximum;
      if (s.exclusive_maximum ? v >= max : v > max) {
        out_.push_back(Invalid(FieldOf(path), data, path + " in body should be less than " +
                                                         std::string(s.exclusive_maximum ? "" : "or equal to ") +
                                                         LimitText(*s.maximum, data)));
      }
    }
    if (s.minimum) {
      const double min = integer ? std::trunc(*s.minimum) : *s.minimum;
      if (s.exclusive_minimum ? v <= min : v < min) {
        out_.push_back(Invalid(FieldOf(path), data, path + " in body should be greater than " +
                                                         std::string(s.exclusive_minimum ? "" : "or equal to ") +
                                                         LimitText(*s.minimum, data)));
      }
    }
  }

  void array(const Schema& s, const json& data, const std::string& path, const json* old) {
    if (s.items) {
      const json* old_list = old != nullptr && old->is_array() ? old : nullptr;
      for (std::size_t i = 0; i < data.size(); ++i) {
        value(*s.items, data[i], path + "[" + std::to_string(i) + "]", CorrelatedItem(s, data[i], old_list));
      }
    }
    const auto size = static_cast<int64_t>(data.size());
    if (s.min_items && size < *s.min_items) {
      out_.push_back(Invalid(FieldOf(path), size,
                             path + " in body should have at least " + std::to_string(*s.min_items) + " items"));
    }
    if (s.max_items && size > *s.max_items) out_.push_back(TooMany(FieldOf(path), size, *s.max_items));
  }

  void enumeration(const Schema& s, const json& data, const std::string& path) {
    if (!s.enum_values || s.enum_values->empty()) return;
    std::vector<std::string> allowed;
    for (const auto& candidate : *s.enum_values) {
      if (!data.is_null() && EnumEqual(data, candidate)) return;
      allowed.push_back(EnumText(candidate));
    }
    out_.push_back(NotSupported(FieldOf(path), data, allowed));
  }

  void object(const Schema& s, const json& data, const std::string& path, const json* old) {
    const auto keys = static_cast<int64_t>(data.size());
    if (s.min_properties && keys < *s.min_properties) {  // kube-openapi stops at a property-count failure
      out_.push_back(Invalid(FieldOf(path), keys,
                             path + " in body should have at least " + std::to_string(*s.min_properties) + " properties"));
      return;
    }
    if (s.max_properties && keys > *s.max_properties) {
      out_.push_back(TooMany(FieldOf(path), keys, *s.max_properties));
      return;
    }
    auto old_child = [&](const std::string& key) -> const json* {
      if (old == nullptr || !old->is_object()) return nullptr;
      auto it = old->find(key);
      return it == old->end() ? nullptr : &*it;
    };
    for (auto it = data.begin(); it != data.end(); ++it) {
      if (s.additional_properties && !s.properties.count(it.key())) {
        value(*s.additional_properties, it.value(), path + "." + it.key(), old_child(it.key()));
      }
    }
    for (const auto& [name, prop] : s.properties) {
      if (auto it = data.find(name); it != data.end()) value(*prop, *it, PropertyPath(path, name), old_child(name));
    }
    for (const auto& name : s.required) {
      if (!data.contains(name)) out_.push_back(Required(FieldOf(path + "." + name)));
    }
  }

  // allOf/anyOf/oneOf/not: their summary errors come back without a field (apiextensions passes a nil path).
  void junctors(const Schema& s, const json& data, const std::string& path) {
    const std::string quoted = GoQuote(path);
    if (!s.any_of.empty()) {
      auto best = alternatives(s.any_of, data, path);
      if (best.second > 0) {
        out_.push_back(Invalid("<nil>", "", quoted + " must validate at least one schema (anyOf)"));
        out_.insert(out_.end(), best.first.begin(), best.first.end());
      }
    }
    if (!s.one_of.empty()) OneOf(s, data, path, quoted);
    if (!s.all_of.empty()) {
      std::size_t valid = 0;
      for (const auto& sub : s.all_of) {
        FieldErrors errs = Run(sub, data, path);
        valid += errs.empty();
        out_.insert(out_.end(), errs.begin(), errs.end());
      }
      if (valid != s.all_of.size()) {
        out_.push_back(Invalid("<nil>", "", quoted + " must validate all the schemas (allOf)" + (valid == 0 ? ". None validated" : "")));
      }
    }
    if (s.not_schema && Run(*s.not_schema, data, path).empty()) {
      out_.push_back(Invalid("<nil>", "", quoted + " must not validate the schema (not)"));
    }
  }

  void OneOf(const Schema& s, const json& data, const std::string& path, const std::string& quoted) {
    std::size_t valid = 0;
    for (const auto& sub : s.one_of) valid += Run(sub, data, path).empty();
    if (valid == 1) return;
    out_.push_back(Invalid("<nil>", "", quoted + " must validate one and only one schema (oneOf). " +
                                            (valid == 0 ? std::string("Found none valid")
                                                        : "Found " + std::to_string(valid) + " valid alternatives")));
    if (valid == 0) {
      auto best = alternatives(s.one_of, data, path);
      out_.insert(out_.end(), best.first.begin(), best.first.end());
    }
  }

  // The failures of the alternative that came closest (fewest errors), and how many errors that is (0 = one passed).
  std::pair<FieldErrors, std::size_t> alternatives(const std::vector<Schema>& subs, const json& data, const std::string& path) {
    std::pair<FieldErrors, std::size_t> best{{}, SIZE_MAX};
    for (const auto& sub : subs) {
      FieldErrors errs = Run(sub, data, path);
      if (errs.size() < best.second) best = {errs, errs.size()};
      if (errs.empty()) break;
    }
    return best;
  }

  static FieldErrors Run(const Schema& s, const json& data, const std::string& path) {
    FieldErrors errs;
    Validator(errs).value(s, data, path, nullptr);
    return errs;
  }

  FieldErrors& out_;
};

bool SameKeys(const json& a, const json& b, const std::vector<std::string>& keys) {
  if (!a.is_object() || !b.is_object()) return false;
  for (const auto& k : keys) {
    auto x = a.find(k), y = b.find(k);
    if ((x == a.end()) != (y == b.end())) return false;
    if (x != a.end() && *x != *y) return false;
  }
  return true;
}

}  // namespace

bool IsIntegral(const json& number) {
  if (!number.is_number_float()) return number.is_number();
  const double v = number.get<double>();
  return std::isfinite(v) && v == std::trunc(v);
}

const json* CorrelatedItem(const Schema& list, const json& item, const json* old_list) {
  if (old_list == nullptr) return nullptr;
  for (const auto& candidate : *old_list) {
    if (list.list_type == "map" && SameKeys(candidate, item, list.list_map_keys)) return &candidate;
    if (list.list_type == "set" && candidate == item) return &candidate;
  }
  return nullptr;
}

FieldErrors ValidateStructure(const Schema& root, const json& object, const json* old) {
  FieldErrors errors;
  Validator(errors).value(root, object, "", old);
  return errors;
}

}  // namespace gangplank::apiserver_double::schema
