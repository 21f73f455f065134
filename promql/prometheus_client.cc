// Prometheus query API over net::HttpClient. The body is read through HttpClient::stream so that an
// oversized answer is cut off at max_body_bytes rather than buffered whole.
#include "promql/prometheus_client.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "promql/response_parser.h"

namespace gangplank::promql {
namespace {

using Kind = QueryError::Kind;

// Thrown from the body callback to stop reading; HttpClient::stream rethrows it unchanged.
struct BodyTooLarge {};

// Splits "scheme://authority/path" into the part HttpClient takes and the path prefix.
std::pair<std::string, std::string> SplitBaseUrl(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) throw std::invalid_argument("Prometheus URL '" + url + "' has no scheme");
  const auto path_start = url.find('/', scheme_end + 3);
  if (path_start == std::string::npos) return {url, ""};
  std::string path = url.substr(path_start);
  while (!path.empty() && path.back() == '/') path.pop_back();
  return {url.substr(0, path_start), path};
}

// Query-parameter encoding: PromQL is full of {}"=~ and spaces.
std::string EncodeParam(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    const bool plain = std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Prometheus takes times as Unix seconds with a fraction; milliseconds is its own resolution (and a
// double holds today's milliseconds exactly).
std::string Seconds(std::chrono::milliseconds since_epoch) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(since_epoch.count()) / 1000);
  return text;
}

std::string UnixSeconds(Clock::time_point time) {
  return Seconds(std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()));
}

QueryError FromTransport(const net::TransportError& e) {
  const Kind kind = e.kind() == net::TransportError::Kind::kTimeout ? Kind::kTimeout : Kind::kUnreachable;
  return QueryError{
      kind, std::string("Prometheus ") + (kind == Kind::kTimeout ? "timed out: " : "unreachable: ") + e.what(), 0, ""};
}

// Token files end with a newline more often than not; a header value must not.
std::string TrimTrailingSpace(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

}  // namespace

PrometheusClient::PrometheusClient(PrometheusClientOptions options) : options_(std::move(options)) {
  auto [server, prefix] = SplitBaseUrl(options_.base_url);
  path_prefix_ = std::move(prefix);
  net::HttpClientOptions http;
  http.base_url = std::move(server);
  http.tls.ca_file = options_.ca_file;
  http_ = net::MakeHttpClient(http);
}

Result<InstantVector> PrometheusClient::Query(std::string_view promql, std::optional<Clock::time_point> time) {
  std::string target = "/api/v1/query?query=" + EncodeParam(promql);
  if (time) target += "&time=" + UnixSeconds(*time);
  Result<std::string> body = Get(target);
  if (!body.ok()) return body.error();
  return ParseVectorResponse(body.value());
}

Result<Matrix> PrometheusClient::QueryRange(std::string_view promql, Clock::time_point start, Clock::time_point end,
                                            std::chrono::milliseconds step) {
  const std::string target = "/api/v1/query_range?query=" + EncodeParam(promql) + "&start=" + UnixSeconds(start) +
                             "&end=" + UnixSeconds(end) +
                             "&step=" + Seconds(std::max(step, std::chrono::milliseconds(1)));
  Result<std::string> body = Get(target);
  if (!body.ok()) return body.error();
  return ParseMatrixResponse(body.value());
}

Result<std::string> PrometheusClient::BearerToken() const {
  if (options_.bearer_token_file.empty()) return options_.bearer_token;
  std::ifstream in(options_.bearer_token_file, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return QueryError{Kind::kCredentials, "cannot read bearer token file '" + options_.bearer_token_file + "'", 0, ""};
  }
  return TrimTrailingSpace(text.str());
}

Result<std::string> PrometheusClient::Get(const std::string& target) {
  Result<std::string> token = BearerToken();
  if (!token.ok()) return token.error();
  net::HttpClientRequest request;
  request.target = path_prefix_ + target;
  request.headers = {{"Accept", "application/json"}};
  if (!token.value().empty()) request.headers.emplace_back("Authorization", "Bearer " + token.value());
  request.timeout = options_.timeout;
  std::string body;
  const auto collect = [&](std::string_view bytes) {
    if (body.size() + bytes.size() > options_.max_body_bytes) throw BodyTooLarge{};
    body.append(bytes);
  };
  try {
    net::CancelToken cancel;
    const net::HttpClientResponse response = http_->stream(request, options_.timeout, collect, cancel);
    if (response.status < 200 || response.status >= 300) return ErrorFromStatus(response.status, response.body);
    return body;
  } catch (const BodyTooLarge&) {
    return QueryError{Kind::kTooLarge, "the answer exceeds " + std::to_string(options_.max_body_bytes) + " bytes", 0,
                      ""};
  } catch (const net::TransportError& e) {
    return FromTransport(e);
  }
}

}  // namespace gangplank::promql
