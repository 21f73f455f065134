#include "cache/crd/json_fields.h"

#include "cache/objects/decode_error.h"

namespace gangplank::cache::json_fields {

std::string Path(const std::string& at, const std::string& key) { return at.empty() ? key : at + "." + key; }

const nlohmann::json* Member(const nlohmann::json* object, const std::string& at, const char* key) {
  if (object == nullptr || object->is_null()) return nullptr;
  if (!object->is_object()) throw DecodeError(at, "expected an object");
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::string> String(const nlohmann::json* object, const std::string& at, const char* key) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) throw DecodeError(Path(at, key), "expected a string");
  return v->get<std::string>();
}

std::optional<bool> Bool(const nlohmann::json* object, const std::string& at, const char* key) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) throw DecodeError(Path(at, key), "expected true or false");
  return v->get<bool>();
}

std::optional<double> NonNegativeNumber(const nlohmann::json* object, const std::string& at, const char* key) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number() || !(v->get<double>() >= 0)) throw DecodeError(Path(at, key), "expected a number >= 0");
  return v->get<double>();
}

std::optional<int> NonNegativeInt(const nlohmann::json* object, const std::string& at, const char* key,
                                  long long max) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer() || v->get<long long>() < 0 || v->get<long long>() > max) {
    throw DecodeError(Path(at, key), "expected a whole number from 0 to " + std::to_string(max));
  }
  return static_cast<int>(v->get<long long>());
}

std::optional<std::map<std::string, std::string>> StringMap(const nlohmann::json* object, const std::string& at,
                                                            const char* key) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) throw DecodeError(Path(at, key), "expected an object of strings");
  std::map<std::string, std::string> out;
  for (const auto& [k, value] : v->items()) {
    if (!value.is_string()) throw DecodeError(Path(Path(at, key), k), "expected a string");
    out.emplace(k, value.get<std::string>());
  }
  return out;
}

std::optional<std::vector<std::string>> StringList(const nlohmann::json* object, const std::string& at,
                                                   const char* key) {
  const nlohmann::json* v = Member(object, at, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) throw DecodeError(Path(at, key), "expected a list of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string()) throw DecodeError(Path(at, key) + "[" + std::to_string(i) + "]", "expected a string");
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

}  // namespace gangplank::cache::json_fields
