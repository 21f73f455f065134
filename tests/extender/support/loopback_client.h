// A minimal blocking HTTP/1.1 client over one keep-alive TCP connection to 127.0.0.1, for tests and
// load generation: it adds nearly nothing to what is measured, unlike a full client library.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gangplank::extender::testing {

struct LoopbackResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};

class LoopbackClient {
 public:
  explicit LoopbackClient(std::uint16_t port) : port_(port) { Connect(); }
  ~LoopbackClient() { Close(); }
  LoopbackClient(const LoopbackClient&) = delete;
  LoopbackClient& operator=(const LoopbackClient&) = delete;

  LoopbackResponse Post(std::string_view path, std::string_view body) { return Send("POST", path, body); }
  LoopbackResponse Get(std::string_view path) { return Send("GET", path, {}); }

  // One request; reconnects once if the server had closed the idle connection.
  LoopbackResponse Send(std::string_view method, std::string_view path, std::string_view body) {
    std::string head;
    head.reserve(160);
    head.append(method).append(" ").append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    head.append("Content-Type: application/json\r\nAccept: application/json\r\n");
    if (method == "POST") head.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
    head.append("\r\n");
    if (!WriteAll(head) || !WriteAll(body)) {
      Close();
      Connect();
      if (!WriteAll(head) || !WriteAll(body)) throw std::runtime_error("loopback client: cannot send");
    }
    return ReadResponse();
  }

 private:
  void Connect() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("loopback client: socket failed");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      Close();
      throw std::runtime_error("loopback client: cannot connect to port " + std::to_string(port_));
    }
    buffer_.clear();
  }

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool WriteAll(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads until `buffer_` holds at least `size` bytes.
  void Fill(size_t size) {
    char chunk[65536];
    while (buffer_.size() < size) {
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) throw std::runtime_error("loopback client: connection closed mid-response");
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  size_t FindInBuffer(std::string_view what) {
    size_t pos;
    while ((pos = buffer_.find(what)) == std::string::npos) Fill(buffer_.size() + 1);
    return pos;
  }

  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  LoopbackResponse ReadResponse() {
    const size_t end = FindInBuffer("\r\n\r\n");
    const std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    LoopbackResponse r;
    r.status = std::stoi(head.substr(9, 3));
    long length = -1;
    bool chunked = false;
    size_t line = head.find("\r\n");
    while (line != std::string::npos) {
      const size_t next = head.find("\r\n", line + 2);
      const std::string h = head.substr(line + 2, next == std::string::npos ? std::string::npos : next - line - 2);
      const size_t colon = h.find(':');
      if (colon != std::string::npos) {
        const std::string name = Lower(h.substr(0, colon));
        std::string value = h.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "content-length") length = std::stol(value);
        if (name == "content-type") r.content_type = value;
        if (name == "transfer-encoding" && Lower(value).find("chunked") != std::string::npos) chunked = true;
      }
      line = next;
    }
    if (chunked) {
      while (true) {
        const size_t eol = FindInBuffer("\r\n");
        const size_t size = std::stoul(buffer_.substr(0, eol), nullptr, 16);
        buffer_.erase(0, eol + 2);
        Fill(size + 2);
        r.body.append(buffer_, 0, size);
        buffer_.erase(0, size + 2);
        if (size == 0) break;
      }
    } else if (length >= 0) {
      Fill(static_cast<size_t>(length));
      r.body = buffer_.substr(0, static_cast<size_t>(length));
      buffer_.erase(0, static_cast<size_t>(length));
    }
    return r;
  }

  std::uint16_t port_;
  int fd_ = -1;
  std::string buffer_;
};

// Whether a server on the port answers GET `path` with 200 (false while it is not listening yet).
inline bool Answers200(std::uint16_t port, std::string_view path) {
  try {
    LoopbackClient client(port);
    return client.Get(path).status == 200;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace gangplank::extender::testing
