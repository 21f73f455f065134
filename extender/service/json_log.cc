#include "extender/service/json_log.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace gangplank::extender {

void SetUpJsonLogging(const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("gangplank-extender");
  logger->set_pattern(R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l",%v})", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace gangplank::extender
