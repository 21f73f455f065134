#include "kube/rest_client.h"

#include <thread>

#include "base/base64.h"
#include "kube/api_error.h"

namespace gangplank::kube {
namespace {

bool DefaultIdempotent(const std::string& method) { return method != "POST"; }

std::optional<std::chrono::seconds> RetryAfterOf(const net::HttpClientResponse& response) {
  auto header = response.header("Retry-After");
  if (!header) return std::nullopt;
  try {
    long long s = std::stoll(*header);
    if (s >= 0) return std::chrono::seconds(s);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}


}  // namespace

RestClient::RestClient(ClusterConfig config, RestOptions options, std::shared_ptr<net::HttpClient> http)
    : config_(std::move(config)),
      options_(std::move(options)),
      http_(std::move(http)),
      limiter_(options_.qps, options_.burst),
      tokens_(config_.token, config_.token_file) {
  if (!http_) http_ = net::MakeHttpClient({config_.server, config_.tls});
  if (!options_.sleep) options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

void RestClient::Wait(std::chrono::milliseconds d) {
  if (d > std::chrono::milliseconds::zero()) options_.sleep(d);
}

net::HttpClientRequest RestClient::ToHttp(const RestRequest& request) {
  net::HttpClientRequest out;
  out.method = request.method;
  out.target = BuildTarget(request.path, request.query);
  out.body = request.body;
  out.timeout = request.timeout.value_or(options_.request_timeout);
  out.headers.emplace_back("Accept", "application/json");
  out.headers.emplace_back("User-Agent", options_.user_agent);
  if (!request.body.empty() || request.method != "GET") out.headers.emplace_back("Content-Type", request.content_type);
  if (std::string token = tokens_.token(); !token.empty()) {
    out.headers.emplace_back("Authorization", "Bearer " + token);
  } else if (!config_.username.empty()) {
    out.headers.emplace_back("Authorization", "Basic " + base::Base64Encode(config_.username + ":" + config_.password));
  }
  return out;
}

net::HttpClientResponse RestClient::Execute(const RestRequest& request) {
  const bool idempotent = request.idempotent.value_or(DefaultIdempotent(request.method));
  Backoff backoff(options_.retry_backoff);
  int retries = 0;
  int transport_retries = 0;
  bool reauthenticated = false;
  for (;;) {
    limiter_.Acquire();
    net::HttpClientResponse response;
    try {
      ++sent_;
      response = http_->Send(ToHttp(request));
    } catch (const net::TransportError& e) {
      // A connect failure never reached the server; other transport errors might have.
      bool safe = idempotent || e.kind() == net::TransportError::Kind::kConnect;
      if (!safe || transport_retries++ >= options_.max_transport_retries) throw;
      Wait(backoff.next());
      continue;
    }
    if (response.status >= 200 && response.status < 300) return response;
    if (response.status == 401 && !config_.token_file.empty() && !reauthenticated) {
      reauthenticated = true;  // the kubelet may have rotated the token since our last read
      tokens_.Invalidate();
      continue;
    }
    auto retry_after = RetryAfterOf(response);
    bool retriable = false;
    if (response.status == 429) {
      // 429 means "not processed", so even a POST may be repeated — except a PDB refusal on eviction,
      // which is an answer, not throttling.
      auto error = MakeApiError(response, request.eviction);
      bool budget = false;
      try {
        std::rethrow_exception(error);
      } catch (const DisruptionBudgetError&) {
        budget = true;
      } catch (...) {
      }
      retriable = !budget;
    } else if (response.status >= 500 && retry_after && idempotent) {
      retriable = true;
    }
    if (!retriable || retries++ >= options_.max_retries) ThrowApiError(response, request.eviction);
    std::chrono::milliseconds delay = retry_after ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                                        std::min(*retry_after, options_.max_retry_after))
                                                  : backoff.next();
    Wait(delay);
  }
}

void RestClient::stream(const RestRequest& request, std::chrono::milliseconds idle_timeout,
                        const std::function<void(std::string_view)>& on_bytes, net::CancelToken& cancel) {
  limiter_.Acquire();
  ++sent_;
  net::HttpClientRequest http_request = ToHttp(request);
  auto response = http_->stream(http_request, idle_timeout, on_bytes, cancel);
  if (response.status == 401 && !config_.token_file.empty()) tokens_.Invalidate();
  if (response.status < 200 || response.status >= 300) ThrowApiError(response);
}

}  // namespace gangplank::kube
