// HttpServerOptions::max_connections and body_limit: a connection beyond the limit is closed at once
// without an answer, a freed slot is usable again, and each route gets its own body limit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "net/http_server.h"
#include "tests/support/loopback_socket.h"

namespace gangplank::net {
namespace {

using gangplank::testing::LoopbackSocket;

const std::string kGet = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";

TEST(ConnectionLimit, OneConnectionTooManyIsClosedAtOnceAndAFreedSlotServesAgain) {
  HttpServerOptions options;
  options.max_connections = 4;
  auto server = MakeHttpServer(options);
  server->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "ok\n"); }));
  std::vector<LoopbackSocket> held;
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(server->port());
    ASSERT_NE(held.back().Exchange(kGet).find("200 OK"), std::string::npos) << "connection " << i;
  }
  LoopbackSocket extra(server->port());
  EXPECT_EQ(extra.Exchange(kGet), "") << "the fifth connection is closed without an answer";
  held.front().Close();
  bool served = false;
  for (int attempt = 0; attempt < 50 && !served; ++attempt) {  // The server notices the close shortly.
    LoopbackSocket again(server->port());
    served = again.Exchange(kGet, std::chrono::milliseconds(500)).find("200 OK") != std::string::npos;
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
  EXPECT_NE(LoopbackSocket(server->port()).Exchange(post("/big")).find("200 OK"), std::string::npos);
  const std::string small = LoopbackSocket(server->port()).Exchange(post("/small"));
  EXPECT_NE(small.find("413"), std::string::npos) << small;
  EXPECT_NE(small.find("limit of 1024 bytes"), std::string::npos) << small;
  // A percent-encoded path is limited as the path the handler sees.
  EXPECT_NE(LoopbackSocket(server->port()).Exchange(post("/%62ig")).find("200 OK"), std::string::npos);
  server->Stop();
}

}  // namespace
}  // namespace gangplank::net
