#include "logging/json_log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <stdexcept>

namespace gangplank::logging {

void SetUpJsonLogging(const std::string& component, const std::string& level) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  // from_str answers "off" for anything it does not know: a typo must not silence the logs.
  if (parsed == spdlog::level::off && level != "off") {
    throw std::invalid_argument("unknown log level '" + level + "' (trace, debug, info, warn, error, critical, off)");
  }
  std::string tag;
  AppendJsonString(tag, component);
  auto logger = spdlog::stderr_logger_mt(component);
  logger->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v,"component":)" + tag + "}",
                      spdlog::pattern_time_type::utc);
  logger->set_level(parsed);
  spdlog::set_default_logger(std::move(logger));
}

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out += escaped;
        } else {
          out += ch;  // UTF-8 passes through; a log line need not be Go-identical.
        }
    }
  }
  out += '"';
}

}  // namespace gangplank::logging
