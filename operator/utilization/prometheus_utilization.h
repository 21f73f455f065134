// Reads pods' GPU utilization from Prometheus' HTTP API (promql/): the query's instant vector, one value
// per (namespace, pod) by the labels dcgm-exporter writes (exported_* first, as a scrape without
// honor_labels renames them). One client per Prometheus URL, made on first use; the bearer token file and
// CA file are the operator's (--prometheus-bearer-token-file, --prometheus-ca-file).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "operator/utilization/pod_utilization.h"
#include "promql/prometheus_client.h"

namespace gangplank::op {

struct PrometheusAccess {
  std::string bearer_token_file;
  std::string ca_file;
  double timeout_seconds = 10;
};

class PrometheusUtilization : public UtilizationSource {
 public:
  explicit PrometheusUtilization(PrometheusAccess access) : access_(std::move(access)) {}

  PodUtilizationSnapshot Read(const std::string& prometheus_url, const std::string& query, double now) override;

 private:
  promql::PrometheusClient& ClientFor(const std::string& url);

  PrometheusAccess access_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<promql::PrometheusClient>> clients_;
};

}  // namespace gangplank::op
