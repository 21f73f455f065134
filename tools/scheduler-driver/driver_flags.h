// Every setting of gangplank-scheduler-driver, each a flag and an environment variable
// GANGPLANK_SCHEDULER_DRIVER_<FLAG_IN_UPPER_SNAKE_CASE> (--extender-url / GANGPLANK_SCHEDULER_DRIVER_EXTENDER_URL);
// flags win over the environment. Bad settings are usage errors: exit code 2 with a message naming the
// flag.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "tools/scheduler-driver/driver_options.h"

namespace CLI {
class App;
}

namespace gangplank::scheduler_driver {

struct DriverFlags {
  DriverOptions driver;
  std::string extender_url;           // urlPrefix, e.g. http://127.0.0.1:8888/gangplank
  std::string extender_timeout = "5s";
  double pod_initial_backoff_seconds = 1;
  double pod_max_backoff_seconds = 10;
  std::string kubeconfig;  // empty: in-cluster service account
  double kube_api_qps = 50;  // kube-scheduler's defaults
  int kube_api_burst = 100;
  std::string metrics_bind_address = "0.0.0.0";
  int metrics_port = 10251;  // 0: no metrics/health server
  std::string log_level = "info";
};

inline constexpr int kUsageExitCode = 2;

// Registers every flag (with its environment variable) on `app`, writing into `flags`.
void AddDriverFlags(CLI::App& app, DriverFlags& flags);
// Checks what the flags say together and fills driver.extender from extender_url and the durations.
// Throws std::invalid_argument naming the flag.
void FinishDriverFlags(DriverFlags& flags);

// Parses a command line. nullopt: run. Otherwise the process's exit code: 0 after --help (written to
// `out`), kUsageExitCode after a bad flag (the reason written to `err`).
std::optional<int> ParseDriverFlags(int argc, const char* const* argv, DriverFlags& flags, std::ostream& out,
                                    std::ostream& err);

// Go-style durations as kube-scheduler's httpTimeout: "5s", "500ms", "1m30s", "1.5s"; a bare number is
// seconds. Throws std::invalid_argument.
std::chrono::milliseconds ParseDuration(std::string_view text);

// "http://host:port/prefix/" -> base "http://host:port", prefix "/prefix". Throws std::invalid_argument.
void SplitExtenderUrl(const std::string& url, ExtenderOptions& out);

}  // namespace gangplank::scheduler_driver
