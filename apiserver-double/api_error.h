// Errors the double answers with a metav1.Status body; thrown by request handling and turned into the
// HTTP reply in one place.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace gangplank::apiserver_double {

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, const std::string& message, nlohmann::json details = nullptr)
      : std::runtime_error(message), code_(code), reason_(std::move(reason)), details_(std::move(details)) {}

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const nlohmann::json& details() const { return details_; }

  nlohmann::json status() const {
    nlohmann::json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", what()}, {"reason", reason_}, {"code", code_}};
    if (!details_.is_null()) s["details"] = details_;
    return s;
  }

 private:
  int code_;
  std::string reason_;
  nlohmann::json details_;
};

inline nlohmann::json ObjectDetails(const std::string& name, const std::string& group, const std::string& kind) {
  return {{"name", name}, {"group", group}, {"kind", kind}};
}

inline ApiError NotFound(const std::string& resource, const std::string& name, const std::string& group = "") {
  const std::string qualified = group.empty() ? resource : resource + "." + group;
  return ApiError(404, "NotFound", qualified + " \"" + name + "\" not found", ObjectDetails(name, group, resource));
}

inline ApiError AlreadyExists(const std::string& resource, const std::string& name, const std::string& group = "") {
  const std::string qualified = group.empty() ? resource : resource + "." + group;
  return ApiError(409, "AlreadyExists", qualified + " \"" + name + "\" already exists",
                  ObjectDetails(name, group, resource));
}

inline ApiError Conflict(const std::string& resource, const std::string& name, const std::string& group,
                         const std::string& why) {
  const std::string qualified = group.empty() ? resource : resource + "." + group;
  return ApiError(409, "Conflict", "Operation cannot be fulfilled on " + qualified + " \"" + name + "\": " + why,
                  ObjectDetails(name, group, resource));
}

inline ApiError BadRequest(const std::string& message) { return ApiError(400, "BadRequest", message); }

// The double's resourceVersions are decimal counters; anything else in a request is a 400.
inline uint64_t ParseRv(const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw BadRequest("invalid resource version \"" + text + "\"");
  }
}

inline ApiError Invalid(const std::string& kind, const std::string& name, const std::string& field,
                        const std::string& why) {
  return ApiError(422, "Invalid", kind + " \"" + name + "\" is invalid: " + field + ": " + why,
                  {{"name", name}, {"kind", kind},
                   {"causes", {{{"reason", "FieldValueInvalid"}, {"message", why}, {"field", field}}}}});
}

inline ApiError expired(const std::string& message) { return ApiError(410, "Expired", message); }

}  // namespace gangplank::apiserver_double
