// The project's own small HTTP client interface. Everything that talks HTTP to the Kubernetes API goes
// through this header so that the implementation (cpprestsdk today, see cpprest_http_client.cc) can be
// swapped without touching callers. No third-party HTTP header is visible here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gangplank::net {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// ASCII case-insensitive comparison.
bool iequals(std::string_view a, std::string_view b);

// Case-insensitive header lookup (HTTP header names are case-insensitive).
std::optional<std::string> FindHeader(const HeaderList& headers, std::string_view name);

struct HttpClientRequest {
  std::string method = "GET";
  std::string target;  // path plus query, e.g. "/api/v1/pods?limit=500"
  HeaderList headers;
  std::string body;
  std::chrono::milliseconds timeout{30000};  // inactivity timeout for the whole exchange
};

struct HttpClientResponse {
  int status = 0;
  HeaderList headers;
  std::string body;

  std::optional<std::string> header(std::string_view name) const { return FindHeader(headers, name); }
};

// TLS settings. *_file and *_data are alternatives; data wins when both are set.
struct ClientTlsOptions {
  std::string ca_file;
  std::string ca_data;  // PEM
  std::string client_cert_file;
  std::string client_cert_data;  // PEM
  std::string client_key_file;
  std::string client_key_data;  // PEM
  bool insecure_skip_verify = false;
  std::string server_name;  // verify the server certificate against this name (and send it as SNI)
};

struct HttpClientOptions {
  std::string base_url;  // scheme://host:port, no trailing path
  ClientTlsOptions tls;
};

// Raised for failures below HTTP: connection refused, TLS failure, timeouts, cancellation.
class TransportError : public std::runtime_error {
 public:
  enum class Kind { kConnect, kTimeout, kCancelled, kProtocol };
  TransportError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Cooperative cancellation for a streaming call. Cancel from any thread; the stream returns promptly.
class CancelToken {
 public:
  CancelToken() = default;
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void cancel();
  bool cancelled() const { return cancelled_.load(); }
  // Registers the action that aborts the in-flight I/O; runs it at once if already cancelled.
  void OnCancel(std::function<void()> action);
  void ClearOnCancel();

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::function<void()> action_;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;

  // Sends one request and reads the whole response. Throws TransportError below HTTP.
  virtual HttpClientResponse Send(const HttpClientRequest& request) = 0;

  // Sends one request and, for a 2xx answer, calls on_bytes once with no bytes when the status and
  // headers are in (the stream is open: a watch may send nothing for minutes), then hands it body bytes
  // as they arrive (chunk boundaries are arbitrary). Returns when the body ends; the returned response carries the status and
  // headers, and for a non-2xx answer the whole body (on_bytes is not called then). Throws
  // TransportError{kTimeout} when no byte arrived for idle_timeout and {kCancelled} after cancel.
  virtual HttpClientResponse stream(const HttpClientRequest& request, std::chrono::milliseconds idle_timeout,
                              const std::function<void(std::string_view)>& on_bytes, CancelToken& cancel) = 0;
};

// An HttpClient on cpprestsdk. Throws std::invalid_argument for a bad URL or unreadable TLS files.
std::unique_ptr<HttpClient> MakeHttpClient(const HttpClientOptions& options);

}  // namespace gangplank::net
