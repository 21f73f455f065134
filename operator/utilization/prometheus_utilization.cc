#include "operator/utilization/prometheus_utilization.h"

#include <chrono>
#include <exception>

#include "promql/pod_values.h"

namespace gangplank::op {

promql::PrometheusClient& PrometheusUtilization::ClientFor(const std::string& url) {
  std::lock_guard lock(mu_);
  auto& client = clients_[url];
  if (!client) {
    promql::PrometheusClientOptions options;
    options.base_url = url;
    options.bearer_token_file = access_.bearer_token_file;
    options.ca_file = access_.ca_file;
    options.timeout = std::chrono::milliseconds(static_cast<long long>(access_.timeout_seconds * 1000));
    client = std::make_unique<promql::PrometheusClient>(std::move(options));
  }
  return *client;
}

PodUtilizationSnapshot PrometheusUtilization::Read(const std::string& prometheus_url, const std::string& query,
                                                   double now) {
  PodUtilizationSnapshot out;
  out.at = now;
  try {
    const promql::Result<promql::InstantVector> result = ClientFor(prometheus_url).Query(query);
    if (!result.ok()) {
      out.error = result.error().message;
      out.reason = std::string(promql::KindName(result.error().kind));
      return out;
    }
    for (const auto& [pod, value] : promql::ByPod(result.value())) out.percent[pod] = value;
    out.ok = true;
  } catch (const std::exception& e) {  // A URL or CA file the client refuses: a configuration error.
    out.error = e.what();
    out.reason = "configuration";
  }
  return out;
}

}  // namespace gangplank::op
