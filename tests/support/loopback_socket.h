// A bare loopback TCP connection for the tests that need what an HTTP client library will not do: exact
// bytes on the wire (pipelining, 100-continue, chunked bodies, HTTP/1.0, malformed requests), a
// connection held without sending, half a request, headers and never the body.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gangplank::testing {

class LoopbackSocket {
 public:
  // Never throws: a refused connection is a socket already closed (connected() false; Send fails, reads
  // return "").
  explicit LoopbackSocket(std::uint16_t port);
  ~LoopbackSocket();
  LoopbackSocket(LoopbackSocket&& other) noexcept;
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(LoopbackSocket&&) = delete;

  bool connected() const { return fd_ >= 0; }
  void Close();
  // False when not every byte went (the server closed, or never accepted).
  bool Send(const std::string& bytes);

  // Reads until `text` has come (what came up to and including it is returned, the rest kept for the
  // next read) or `timeout`; what was read is returned either way.
  std::string ReadUntil(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Reads until the server closes the connection or `timeout`.
  std::string ReadToClose(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True once the server closed (or reset) the connection.
  bool ClosedByPeer() const { return peer_closed_; }

  // Reads until the server closes, `timeout` passes, or a whole answer with the body "ok\n" (the net
  // tests' handlers') is in: "" when the server closed without a byte.
  std::string ReadAnswer(std::chrono::milliseconds timeout = std::chrono::seconds(3));
  // Sends `request` (even a refused send may have an answer waiting), then ReadAnswer.
  std::string Exchange(const std::string& request, std::chrono::milliseconds timeout = std::chrono::seconds(3)) {
    Send(request);
    return ReadAnswer(timeout);
  }
  // Reads until the server closes the connection (dropping what it sends) and says how long that took,
  // or -1 ms when it is still open after `limit`.
  std::chrono::milliseconds ClosedAfter(std::chrono::milliseconds limit);

 private:
  // One read of what is there by `deadline`; false at the deadline or once the peer closed.
  bool ReadSome(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string received_;
  bool peer_closed_ = false;
};

}  // namespace gangplank::testing
