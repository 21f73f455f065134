#include "tests/support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace gangplank::testing {
namespace {

void send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) throw std::runtime_error("raw_http: send failed");
    sent += static_cast<std::size_t>(n);
  }
}

std::string build_request(const std::string& method, const std::string& target, const std::string& body,
                          const std::map<std::string, std::string>& headers, bool close) {
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  bool has_type = false;
  for (const auto& [k, v] : headers) {
    req += k + ": " + v + "\r\n";
    std::string lk = k;
    std::transform(lk.begin(), lk.end(), lk.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lk == "content-type") has_type = true;
  }
  if (!body.empty() && !has_type) req += "Content-Type: application/json\r\n";
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  if (close) req += "Connection: close\r\n";
  req += "\r\n" + body;
  return req;
}

// Reads until "\r\n\r\n"; parses status and headers; leaves the remainder in `rest`.
void read_head(int fd, std::chrono::steady_clock::time_point deadline, int& status, std::map<std::string, std::string>& headers,
               std::string& rest) {
  std::string data;
  char buf[65536];
  while (data.find("\r\n\r\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) throw std::runtime_error("raw_http: timeout reading headers");
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) throw std::runtime_error("raw_http: connection closed before headers");
    data.append(buf, static_cast<std::size_t>(n));
  }
  const auto end = data.find("\r\n\r\n");
  const std::string head = data.substr(0, end);
  rest = data.substr(end + 4);
  std::size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  status = std::stoi(status_line.substr(status_line.find(' ') + 1, 3));
  while (line_end != std::string::npos) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    // A repeated header (e.g. one Warning per unknown field) reads as one comma-separated value.
    auto [it, inserted] = headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
}

// Moves complete chunks from `raw` to `body`; returns true when the terminating chunk was seen.
bool dechunk(std::string& raw, std::string& body) {
  while (true) {
    const auto eol = raw.find("\r\n");
    if (eol == std::string::npos) return false;
    const std::size_t size = std::stoul(raw.substr(0, eol), nullptr, 16);
    if (raw.size() < eol + 2 + size + 2) return false;
    if (size == 0) {
      raw.clear();
      return true;
    }
    body.append(raw, eol + 2, size);
    raw.erase(0, eol + 2 + size + 2);
  }
}

}  // namespace

int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("raw_http: socket() failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("raw_http: cannot connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno));
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

RawResponse http_request(uint16_t port, const std::string& method, const std::string& target, const std::string& body,
                         const std::map<std::string, std::string>& headers, std::chrono::milliseconds timeout) {
  const int fd = connect_loopback(port);
  RawResponse response;
  try {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    send_all(fd, build_request(method, target, body, headers, true));
    std::string rest;
    read_head(fd, deadline, response.status, response.headers, rest);
    const bool chunked = response.headers.count("transfer-encoding") && response.headers["transfer-encoding"] == "chunked";
    const std::size_t length = response.headers.count("content-length") ? std::stoul(response.headers["content-length"]) : 0;
    std::string data = rest;
    char buf[65536];
    while (true) {
      if (chunked) {
        std::string copy = data, decoded;
        if (dechunk(copy, decoded)) {
          response.body = decoded;
          break;
        }
      } else if (response.headers.count("content-length") && data.size() >= length) {
        response.body = data.substr(0, length);
        break;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) throw std::runtime_error("raw_http: timeout reading body of " + target);
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        response.body = data;
        break;
      }
      data.append(buf, static_cast<std::size_t>(n));
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return response;
}

RawStream::RawStream(uint16_t port, const std::string& target, const std::map<std::string, std::string>& headers) {
  fd_ = connect_loopback(port);
  try {
    send_all(fd_, build_request("GET", target, "", headers, false));
    read_head(fd_, std::chrono::steady_clock::now() + std::chrono::seconds(10), status_, headers_, raw_);
  } catch (...) {
    ::close(fd_);
    throw;
  }
  chunked_ = headers_.count("transfer-encoding") && headers_["transfer-encoding"] == "chunked";
  if (chunked_) {
    ended_ = dechunk(raw_, body_);
  } else {
    body_ = raw_;
    raw_.clear();
  }
}

RawStream::~RawStream() { close(); }

void RawStream::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawStream::fill(std::chrono::steady_clock::time_point deadline) {
  if (ended_ || fd_ < 0) return false;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  pollfd p{fd_, POLLIN, 0};
  if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
  char buf[65536];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) {
    ended_ = true;
    return false;
  }
  if (chunked_) {
    raw_.append(buf, static_cast<std::size_t>(n));
    if (dechunk(raw_, body_)) ended_ = true;
  } else {
    body_.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<std::string> RawStream::next_line(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto nl = body_.find('\n');
    if (nl != std::string::npos) {
      std::string line = body_.substr(0, nl);
      body_.erase(0, nl + 1);
      return line;
    }
    if (ended_ || !fill(deadline)) {
      if (ended_ && nl == std::string::npos && body_.find('\n') != std::string::npos) continue;
      return std::nullopt;
    }
  }
}

std::string RawStream::read_all(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ended_ && fill(deadline)) {
  }
  std::string out;
  out.swap(body_);
  return out;
}

}  // namespace gangplank::testing
