#include "tests/net/http_server/raw_socket.h"

#include "tests/support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace gangplank::net::testing {

RawSocket::RawSocket(uint16_t port) : fd_(gangplank::testing::connect_loopback(port)) {}

RawSocket::~RawSocket() { ::close(fd_); }

void RawSocket::send(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error("raw socket: send failed");
    sent += static_cast<std::size_t>(n);
  }
}

bool RawSocket::read_some(std::chrono::steady_clock::time_point deadline) {
  if (peer_closed_) return false;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  pollfd p{fd_, POLLIN, 0};
  if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
  char buffer[65536];
  const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
  if (n <= 0) {
    peer_closed_ = true;
    return false;
  }
  received_.append(buffer, static_cast<std::size_t>(n));
  return true;
}

std::string RawSocket::read_until(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (received_.find(text) == std::string::npos && read_some(deadline)) {
  }
  auto pos = received_.find(text);
  const std::size_t end = pos == std::string::npos ? received_.size() : pos + text.size();
  std::string out = received_.substr(0, end);
  received_.erase(0, end);
  return out;
}

std::string RawSocket::read_to_close(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_some(deadline)) {
  }
  std::string out;
  out.swap(received_);
  return out;
}

}  // namespace gangplank::net::testing
