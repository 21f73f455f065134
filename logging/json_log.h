// Structured logs for every gangplank binary: spdlog's default logger writes one JSON object per line
// ({"time","level","component",...}). Messages are written as the inside of that object
// ("msg":"...","key":"value"); JsonFields builds such text safely.
#pragma once

#include <string>
#include <string_view>

namespace gangplank::logging {

// Points the default spdlog logger at stderr with the JSON pattern, tagged with `component`
// (e.g. "gangplank-operator"), at the given level name (trace, debug, info, warn, error, critical, off).
// Throws std::invalid_argument for an unknown level.
void SetUpJsonLogging(const std::string& component, const std::string& level);

// Appends `s` to `out` as a JSON string literal (quotes included).
void AppendJsonString(std::string& out, std::string_view s);

// "\"msg\":\"...\",\"k\":\"v\",..." for the JSON log pattern.
template <typename... KV>
std::string JsonFields(std::string_view msg, KV&&... kv) {
  static_assert(sizeof...(kv) % 2 == 0, "JsonFields takes key/value pairs");
  std::string out = "\"msg\":";
  AppendJsonString(out, msg);
  if constexpr (sizeof...(kv) > 0) {
    const std::string_view items[] = {std::string_view(kv)...};
    for (size_t i = 0; i + 1 < sizeof...(kv); i += 2) {
      out += ',';
      AppendJsonString(out, items[i]);
      out += ':';
      AppendJsonString(out, items[i + 1]);
    }
  }
  return out;
}

}  // namespace gangplank::logging
