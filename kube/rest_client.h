// The REST transport to the API server: authentication (bearer token re-read from file, re-read on 401),
// client-side QPS/burst limiting, and retries that honour Retry-After on 429 and 5xx. Non-idempotent
// requests (POST) are only retried when the server provably did not process them (429).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kube/backoff.h"
#include "kube/config.h"
#include "kube/resource.h"
#include "kube/token_bucket.h"
#include "net/http_client.h"

namespace gangplank::kube {

struct RestOptions {
  double qps = 5;
  int burst = 10;
  int max_retries = 10;  // for 429 / 5xx with Retry-After (client-go: 10)
  int max_transport_retries = 3;  // connection errors, idempotent requests only
  std::chrono::milliseconds request_timeout{30000};
  std::chrono::seconds max_retry_after{60};  // a bad Retry-After never parks a caller for hours
  BackoffPolicy retry_backoff{std::chrono::milliseconds(100), 2.0, 0.5, std::chrono::milliseconds(5000),
                              std::chrono::milliseconds(60000)};
  std::string user_agent = "gangplank/0.1";
  // Test seam: how retries wait. Default sleeps.
  std::function<void(std::chrono::milliseconds)> sleep;
};

struct RestRequest {
  std::string method = "GET";
  std::string path;
  QueryParams query;
  std::string body;
  std::string content_type = "application/json";
  std::optional<bool> idempotent;  // default: every method except POST
  bool eviction = false;           // classify 429 as a PodDisruptionBudget refusal when it is one
  std::optional<std::chrono::milliseconds> timeout;
};

class RestClient {
 public:
  // http defaults to make_http_client() for config.server and config.tls.
  RestClient(ClusterConfig config, RestOptions options = {}, std::shared_ptr<net::HttpClient> http = nullptr);

  // Returns the 2xx response; throws a typed ApiError subclass for other codes, net::TransportError
  // below HTTP.
  net::HttpClientResponse Execute(const RestRequest& request);

  // Long-running GET (watch). Counts against QPS once, at start; never retried here (the caller
  // decides between re-watch and relist). Throws ApiError for a non-2xx answer.
  void stream(const RestRequest& request, std::chrono::milliseconds idle_timeout,
              const std::function<void(std::string_view)>& on_bytes, net::CancelToken& cancel);

  const ClusterConfig& config() const { return config_; }
  TokenBucket& limiter() { return limiter_; }
  // Requests actually sent (including retries) — for tests and metrics.
  long SentRequests() const { return sent_.load(); }

 private:
  net::HttpClientRequest ToHttp(const RestRequest& request) ;
  void Wait(std::chrono::milliseconds d);

  ClusterConfig config_;
  RestOptions options_;
  std::shared_ptr<net::HttpClient> http_;
  TokenBucket limiter_;
  TokenSource tokens_;
  std::atomic<long> sent_{0};
};

}  // namespace gangplank::kube
