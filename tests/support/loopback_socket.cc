#include "tests/support/loopback_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gangplank::testing {

LoopbackSocket::LoopbackSocket(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  if (fd_ < 0) return;
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // Exact bytes, sent when written.
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Close();
}

LoopbackSocket::~LoopbackSocket() { Close(); }

LoopbackSocket::LoopbackSocket(LoopbackSocket&& other) noexcept
    : fd_(other.fd_), received_(std::move(other.received_)), peer_closed_(other.peer_closed_) {
  other.fd_ = -1;
}

void LoopbackSocket::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool LoopbackSocket::Send(const std::string& bytes) {
  std::size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return fd_ >= 0;
}

bool LoopbackSocket::ReadSome(std::chrono::steady_clock::time_point deadline) {
  if (fd_ < 0 || peer_closed_) return false;
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

std::string LoopbackSocket::ReadUntil(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (received_.find(text) == std::string::npos && ReadSome(deadline)) {
  }
  const auto at = received_.find(text);
  const std::size_t end = at == std::string::npos ? received_.size() : at + text.size();
  std::string out = received_.substr(0, end);
  received_.erase(0, end);
  return out;
}

std::string LoopbackSocket::ReadToClose(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ReadSome(deadline)) {
  }
  std::string out;
  out.swap(received_);
  return out;
}

std::string LoopbackSocket::ReadAnswer(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!(received_.find("\r\n\r\n") != std::string::npos && received_.find("ok\n") != std::string::npos) &&
         ReadSome(deadline)) {
  }
  std::string out;
  out.swap(received_);
  return out;
}

std::chrono::milliseconds LoopbackSocket::ClosedAfter(std::chrono::milliseconds limit) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + limit;
  while (ReadSome(deadline)) received_.clear();
  if (!peer_closed_) return std::chrono::milliseconds(-1);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

}  // namespace gangplank::testing
