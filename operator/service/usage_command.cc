#include "operator/service/usage_command.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <optional>

#include "operator/utilization/usage_report.h"
#include "promql/prometheus_client.h"

namespace gangplank::op {
namespace {

std::optional<promql::InstantVector> Ask(promql::PrometheusClient& client, const std::string& query) {
  const promql::Result<promql::InstantVector> answer = client.Query(query);
  if (answer.ok()) return answer.value();
  std::cerr << "usage: Prometheus could not answer " << query << ": " << answer.error().message << "\n";
  return std::nullopt;
}

}  // namespace

CLI::App* AddUsageCommand(CLI::App& app, UsageCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "usage",
      "Print GPU-hours allocated and GPU-hours busy (weighted by measured GPU utilization) per queue and\n"
      "namespace over a past span, for chargeback. Reads the operator's counters from the Prometheus that\n"
      "scrapes it, e.g.:\n"
      "  gangplank-operator usage --prometheus-url http://prometheus.monitoring:9090 --since 7d --csv");
  cmd->add_option("--prometheus-url", o.prometheus_url, "Prometheus that scrapes gangplank-operator")
      ->envname("GANGPLANK_OPERATOR_PROMETHEUS_URL")
      ->required();
  cmd->add_option("--since", o.since, "Span to sum, as Prometheus writes durations: 90m, 24h, 7d, 4w")
      ->capture_default_str();
  cmd->add_option("--pool", o.pool, "Only this GPUPool (empty: every pool)");
  cmd->add_flag("--csv", o.csv, "CSV (queue,namespace,allocated_gpu_hours,busy_gpu_hours) instead of a table");
  cmd->add_option("--prometheus-bearer-token-file", o.bearer_token_file, "File holding a bearer token for Prometheus");
  cmd->add_option("--prometheus-ca-file", o.ca_file, "PEM CA bundle that signs an https Prometheus");
  return cmd;
}

int RunUsageCommand(const UsageCommandOptions& o) {
  if (!ValidSpan(o.since)) {
    std::cerr << "usage: --since " << o.since << " is not a span such as 90m, 24h, 7d or 4w\n";
    return 2;
  }
  promql::PrometheusClientOptions options;
  options.base_url = o.prometheus_url;
  options.bearer_token_file = o.bearer_token_file;
  options.ca_file = o.ca_file;
  std::optional<promql::PrometheusClient> client;
  try {
    client.emplace(std::move(options));
  } catch (const std::exception& e) {
    std::cerr << "usage: " << e.what() << "\n";
    return 2;
  }
  const auto allocated = Ask(*client, UsageQuery(o.since, o.pool, false));
  if (!allocated) return 1;
  const auto busy = Ask(*client, UsageQuery(o.since, o.pool, true));
  if (!busy) return 1;
  const std::vector<UsageRow> rows = UsageRows(*allocated, *busy);
  std::cout << (o.csv ? UsageCsv(rows) : UsageTable(rows, o.since));
  return 0;
}

}  // namespace gangplank::op
