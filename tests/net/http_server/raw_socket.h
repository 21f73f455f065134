// A bare loopback TCP connection for the server tests that need exact bytes on the wire: pipelining,
// 100-continue, chunked request bodies, HTTP/1.0 and malformed requests.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gangplank::net::testing {

class RawSocket {
 public:
  explicit RawSocket(uint16_t port);
  ~RawSocket();
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  void send(const std::string& bytes);
  // Reads until `text` has been received (all bytes so far returned) or `timeout`; what was read is
  // returned either way.
  std::string read_until(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Reads until the server closes the connection or `timeout`.
  std::string read_to_close(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True once the server closed (or reset) the connection.
  bool closed_by_peer() const { return peer_closed_; }

 private:
  bool read_some(std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  std::string received_;
  bool peer_closed_ = false;
};

}  // namespace gangplank::net::testing
