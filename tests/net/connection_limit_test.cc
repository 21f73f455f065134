// HttpServerOptions::max_connections and body_limit: a connection beyond the limit is closed at once
// without an answer, a freed slot is usable again, and each route gets its own body limit.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/http_server.h"

namespace gangplank::net {
namespace {

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
  // Sends `request` and reads until the server closes or `timeout_ms` passes: "" when the server
  // closed without a byte.
  std::string Exchange(const std::string& request, int timeout_ms = 3000) {
    if (fd_ < 0) return "";
    (void)::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
    std::string reply;
    char buffer[4096];
    pollfd p{fd_, POLLIN, 0};
    while (::poll(&p, 1, timeout_ms) > 0) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      reply.append(buffer, static_cast<std::size_t>(n));
      if (reply.find("\r\n\r\n") != std::string::npos && reply.find("ok\n") != std::string::npos) break;
    }
    return reply;
  }

 private:
  int fd_;
};

const std::string kGet = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";

TEST(ConnectionLimit, OneConnectionTooManyIsClosedAtOnceAndAFreedSlotServesAgain) {
  HttpServerOptions options;
  options.max_connections = 4;
  auto server = MakeHttpServer(options);
  server->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
  std::vector<Socket> held;
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(server->port());
    ASSERT_NE(held.back().Exchange(kGet).find("200 OK"), std::string::npos) << "connection " << i;
  }
  Socket extra(server->port());
  EXPECT_EQ(extra.Exchange(kGet), "") << "the fifth connection is closed without an answer";
  held.front().Close();
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {  // The server notices the close shortly.
    Socket again(server->port());
    served = again.Exchange(kGet, 500).find("200 OK") != std::string::npos;
  }
  EXPECT_TRUE(served) << "a freed slot is used again";
  server->Stop();
}

TEST(BodyLimit, EachRouteGetsItsOwnLimit) {
  HttpServerOptions options;
  options.body_limit = [](std::string_view method, std::string_view path) -> std::size_t {
    return method == "POST" && path == "/big" ? 1 << 20 : 1024;
  };
  auto server = MakeHttpServer(options);
  server->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
  const std::string body(100 * 1024, 'x');
  auto post = [&](const std::string& path) {
    return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  EXPECT_NE(Socket(server->port()).Exchange(post("/big")).find("200 OK"), std::string::npos);
  const std::string small = Socket(server->port()).Exchange(post("/small"));
  EXPECT_NE(small.find("413"), std::string::npos) << small;
  EXPECT_NE(small.find("limit of 1024 bytes"), std::string::npos) << small;
  // A percent-encoded path is limited as the path the handler sees.
  EXPECT_NE(Socket(server->port()).Exchange(post("/%62ig")).find("200 OK"), std::string::npos);
  server->Stop();
}

}  // namespace
}  // namespace gangplank::net
