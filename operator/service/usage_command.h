// `gangplank-operator usage`: GPU-hours allocated and GPU-hours busy per queue and namespace over a past
// span, for chargeback, read from Prometheus (the operator's own counters, which Prometheus scrapes).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gangplank::op {

struct UsageCommandOptions {
  std::string prometheus_url;  // Required.
  std::string since = "7d";
  std::string pool;            // Empty: every pool.
  bool csv = false;
  std::string bearer_token_file;
  std::string ca_file;
};

CLI::App* AddUsageCommand(CLI::App& app, UsageCommandOptions& options);
// Prints the table (or CSV); the exit code: 0 printed, 1 Prometheus failed, 2 bad input.
int RunUsageCommand(const UsageCommandOptions& options);

}  // namespace gangplank::op
