// A client of Prometheus' HTTP query API (/api/v1/query and /api/v1/query_range) over net::HttpClient,
// for the operator's view of GPU utilization. Every failure comes back as a QueryError value (see
// query_error.h); only a bad configuration throws, from the constructor.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_client.h"
#include "promql/query_error.h"
#include "promql/samples.h"

namespace gangplank::promql {

struct PrometheusClientOptions {
  // http(s)://host:port, optionally with the path Prometheus is served under (--web.route-prefix or a
  // proxy's), e.g. https://monitoring.example/prometheus.
  std::string base_url = {};
  // Sent as "Authorization: Bearer <token>" when set.
  std::string bearer_token = {};
  // Wins over bearer_token. Read again on every call, so a rotated token (a projected service-account
  // token) is picked up without a restart; a file that cannot be read fails the call (kCredentials).
  std::string bearer_token_file = {};
  // https: trust only the CAs of this PEM bundle (default: the system's roots).
  std::string ca_file = {};
  // Inactivity timeout of one call: no byte for this long and the call fails with kTimeout.
  std::chrono::milliseconds timeout{10000};
  // A larger answer fails with kTooLarge as soon as it grows past this, instead of being held in memory.
  std::size_t max_body_bytes = 16u << 20;
};

class PrometheusClient {
 public:
  // Throws std::invalid_argument for a URL that is not http(s)://host[:port][/path] or a CA file that
  // does not load.
  explicit PrometheusClient(PrometheusClientOptions options);

  // GET /api/v1/query: the instant vector `promql` evaluates to at `time` (default: Prometheus' now).
  // Any other result type (scalar, string, matrix) is kWrongResultType.
  Result<InstantVector> Query(std::string_view promql, std::optional<Clock::time_point> time = std::nullopt);
  // GET /api/v1/query_range: the matrix of `promql` from `start` to `end` every `step` (at least 1 ms).
  Result<Matrix> QueryRange(std::string_view promql, Clock::time_point start, Clock::time_point end,
                            std::chrono::milliseconds step);

 private:
  // GETs `target` (below the base URL's path) and returns the 2xx body or the error.
  Result<std::string> Get(const std::string& target);
  Result<std::string> BearerToken() const;

  PrometheusClientOptions options_;
  std::string path_prefix_;  // the base URL's path without a trailing '/'
  std::unique_ptr<net::HttpClient> http_;
};

}  // namespace gangplank::promql
