// Typed reads of optional fields of custom-resource JSON, each failing with a DecodeError that names
// the field path, for the QueueConfig and PoolConfig readers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gangplank::cache::json_fields {

// The member `key` of `object`, or nullptr when absent or null. Throws DecodeError(at) when `object`
// is present but not a JSON object.
const nlohmann::json* Member(const nlohmann::json* object, const std::string& at, const char* key);

std::optional<std::string> String(const nlohmann::json* object, const std::string& at, const char* key);
std::optional<bool> Bool(const nlohmann::json* object, const std::string& at, const char* key);
// A JSON number >= 0 (integers accepted).
std::optional<double> NonNegativeNumber(const nlohmann::json* object, const std::string& at, const char* key);
// A whole number in [0, max].
std::optional<int> NonNegativeInt(const nlohmann::json* object, const std::string& at, const char* key,
                                  long long max = 1'000'000'000);
std::optional<std::map<std::string, std::string>> StringMap(const nlohmann::json* object, const std::string& at,
                                                            const char* key);
std::optional<std::vector<std::string>> StringList(const nlohmann::json* object, const std::string& at,
                                                   const char* key);

// "spec" + "pools" -> "spec.pools"; "" + "spec" -> "spec".
std::string Path(const std::string& at, const std::string& key);

}  // namespace gangplank::cache::json_fields
