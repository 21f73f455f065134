// core/v1 ConfigMaps and Secrets: data keys must be valid config keys, `immutable: true` freezes data
// (pkg/apis/core/validation ValidateConfigMapUpdate / ValidateSecretUpdate), a Secret's stringData is
// merged into data base64-encoded and dropped (the v1 conversion), its type defaults to Opaque, and the
// typed Secrets carry their required keys (kubernetes.io/tls: tls.crt and tls.key).
#include <regex>
#include <string>

#include "apiserver-double/builtin/builtin_admission.h"

namespace gangplank::apiserver_double::builtin {

using nlohmann::json;
namespace s = schema;

namespace {

std::string base64(const std::string& bytes) {
  static constexpr char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {table[(n >> 18) & 63], table[(n >> 12) & 63], table[(n >> 6) & 63], table[n & 63]};
  }
  if (i + 1 == bytes.size()) {
    const unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    out += {table[(n >> 18) & 63], table[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += {table[(n >> 18) & 63], table[(n >> 12) & 63], table[(n >> 6) & 63], '='};
  }
  return out;
}

// IsConfigMapKey (k8s.io/apimachinery/pkg/util/validation).
void CheckKeys(const json& map, const std::string& field, s::FieldErrors& errors) {
  static const std::regex ConfigKey("[-._a-zA-Z0-9]+");
  if (!map.is_object()) return;
  for (const auto& [key, value] : map.items()) {
    const std::string path = field + "[" + key + "]";
    if (!std::regex_match(key, ConfigKey)) {
      errors.push_back(s::Invalid(path, key,
                                  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
                                  "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
    } else if (key == "." || key == "..") {
      errors.push_back(s::Invalid(path, key, "must not be '" + key + "'"));
    }
  }
}

// Once `immutable: true` is stored, neither the flag nor the data may change.
void CheckImmutable(const json& object, const json* old, const std::vector<const char*>& data_fields, s::FieldErrors& errors) {
  if (old == nullptr || !old->value("immutable", false)) return;
  if (!object.value("immutable", false)) {
    errors.push_back(s::Forbidden("immutable", "field is immutable when `immutable` is set"));
  }
  for (const char* field : data_fields) {
    const json now = object.contains(field) ? object[field] : json::object();
    const json before = old->contains(field) ? (*old)[field] : json::object();
    if (now != before) errors.push_back(s::Forbidden(field, "field is immutable when `immutable` is set"));
  }
}

}  // namespace

s::FieldErrors AdmitConfigMap(json& config_map, const json* old) {
  s::FieldErrors errors;
  CheckKeys(config_map.value("data", json::object()), "data", errors);
  CheckKeys(config_map.value("binaryData", json::object()), "binaryData", errors);
  CheckImmutable(config_map, old, {"data", "binaryData"}, errors);
  return errors;
}

s::FieldErrors AdmitSecret(json& secret, const json* old) {
  if (secret.contains("stringData") && secret["stringData"].is_object()) {
    for (const auto& [key, value] : secret["stringData"].items()) {
      secret["data"][key] = base64(value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  secret.erase("stringData");
  if (!secret.contains("type") || secret["type"] == "") secret["type"] = "Opaque";
  s::FieldErrors errors;
  CheckKeys(secret.value("data", json::object()), "data", errors);
  const std::string type = secret.value("type", "Opaque");
  const json data = secret.value("data", json::object());
  if (type == "kubernetes.io/tls") {
    for (const char* key : {"tls.crt", "tls.key"}) {
      if (!data.contains(key)) errors.push_back(s::Required(std::string("data[") + key + "]"));
    }
  } else if (type == "kubernetes.io/basic-auth" && !data.contains("username") && !data.contains("password")) {
    errors.push_back(s::Required("data[username]"));
    errors.push_back(s::Required("data[password]"));
  }
  if (old != nullptr && old->value("type", "Opaque") != type) {
    s::FieldError e = s::Invalid("type", type, "field is immutable");
    errors.push_back(e);
  }
  CheckImmutable(secret, old, {"data"}, errors);
  return errors;
}

}  // namespace gangplank::apiserver_double::builtin
