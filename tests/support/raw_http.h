// A deliberately independent HTTP/1.1 client over plain POSIX sockets for testing the project's HTTP
// server: it shares no code with the project's client library, so a bug there cannot hide a bug in the
// server.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gangplank::testing {

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-cased names; repeats joined with ", "
  std::string body;                            // de-chunked
};

// A TCP connection to 127.0.0.1:port with TCP_NODELAY; throws std::runtime_error naming the reason.
int connect_loopback(uint16_t port);

// One request on a fresh connection (Connection: close). Throws std::runtime_error on socket errors.
RawResponse http_request(uint16_t port, const std::string& method, const std::string& target,
                         const std::string& body = "", const std::map<std::string, std::string>& headers = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));

// A streaming GET (watch): headers read at open; next_line() returns one de-chunked line at a time.
class RawStream {
 public:
  RawStream(uint16_t port, const std::string& target, const std::map<std::string, std::string>& headers = {});
  ~RawStream();
  RawStream(const RawStream&) = delete;
  RawStream& operator=(const RawStream&) = delete;

  int status() const { return status_; }
  const std::map<std::string, std::string>& headers() const { return headers_; }
  // Next '\n'-terminated line (without it); nullopt at end of stream or after `timeout`.
  std::optional<std::string> next_line(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True once the server ended the body (final chunk seen) or closed the connection.
  bool ended() const { return ended_; }
  // The rest of the body until the server ends it (or timeout).
  std::string read_all(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  void close();

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);  // decodes more body bytes into lines_
  int fd_ = -1;
  int status_ = 0;
  std::map<std::string, std::string> headers_;
  std::string raw_;    // bytes read, not yet de-chunked
  std::string body_;   // de-chunked bytes not yet returned
  bool chunked_ = false;
  bool ended_ = false;
};

}  // namespace gangplank::testing
