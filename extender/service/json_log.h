// Structured logs: spdlog's default logger writes one JSON object per line. Messages are written as
// the inside of that object ("msg":"...","key":"value"); JsonFields builds such text safely.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "extender/protocol/json_writer.h"

namespace gangplank::extender {

// Points the default spdlog logger at stderr with the JSON pattern and the given level name.
void SetUpJsonLogging(const std::string& level);

// "\"msg\":\"...\",\"k\":\"v\",..." for the JSON log pattern.
template <typename... KV>
std::string JsonFields(std::string_view msg, KV&&... kv) {
  std::string out = "\"msg\":";
  AppendGoJsonString(out, msg);
  auto add = [&out](std::string_view key, std::string_view value) {
    out += ',';
    AppendGoJsonString(out, key);
    out += ':';
    AppendGoJsonString(out, value);
  };
  static_assert(sizeof...(kv) % 2 == 0, "JsonFields takes key/value pairs");
  if constexpr (sizeof...(kv) > 0) {
    const std::string_view items[] = {std::string_view(kv)...};
    for (size_t i = 0; i + 1 < sizeof...(kv); i += 2) add(items[i], items[i + 1]);
  }
  return out;
}

}  // namespace gangplank::extender
