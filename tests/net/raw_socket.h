// A plain TCP client socket for the net/ tests that need what an HTTP client library will not do: hold
// a connection without sending, send half a request, send headers and never the body.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace gangplank::net::testing {

class Socket {
 public:
  explicit Socket(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Close();
  }
  ~Socket() { Close(); }
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool Send(const std::string& bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Sends `request` and reads until the server closes or `timeout_ms` passes: "" when the server
  // closed without a byte.
  std::string Exchange(const std::string& request, int timeout_ms = 3000) {
    if (fd_ < 0) return "";
    Send(request);
    return Read(timeout_ms);
  }
  // Reads until the server closes, `timeout_ms` passes, or a whole "ok\n" answer is in.
  std::string Read(int timeout_ms = 3000) {
    std::string reply;
    char buffer[4096];
    pollfd p{fd_, POLLIN, 0};
    while (fd_ >= 0 && ::poll(&p, 1, timeout_ms) > 0) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      reply.append(buffer, static_cast<std::size_t>(n));
      if (reply.find("\r\n\r\n") != std::string::npos && reply.find("ok\n") != std::string::npos) break;
    }
    return reply;
  }
  // How long until the server closes the connection (reading and dropping what it sends), or -1 when
  // it is still open after `limit`.
  std::chrono::milliseconds ClosedAfter(std::chrono::milliseconds limit) {
    const auto start = std::chrono::steady_clock::now();
    char buffer[4096];
    pollfd p{fd_, POLLIN, 0};
    for (;;) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      if (spent >= limit) return std::chrono::milliseconds(-1);
      if (::poll(&p, 1, static_cast<int>((limit - spent).count())) <= 0) continue;
      if (::recv(fd_, buffer, sizeof buffer, 0) <= 0) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      }
    }
  }

 private:
  int fd_;
};

}  // namespace gangplank::net::testing
