// The server's HTTP/1.x behaviour checked byte for byte over a bare socket.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/http_server.h"
#include "tests/support/loopback_socket.h"

namespace gangplank::net {
namespace {

using gangplank::testing::LoopbackSocket;
using namespace std::chrono_literals;

// Answers every request with "<method> <path> <body>".
HttpHandler echo() {
  return MakeSyncHandler([](const HttpRequest& req) { return HttpResponse::text(200, req.method + " " + req.path + " " + req.body); });
}

TEST(HttpServerWire, KeepAliveServesSeveralRequestsThenHonoursConnectionClose) {
  auto server = MakeHttpServer({});
  server->Start(echo());
  LoopbackSocket c(server->port());
  c.Send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(c.ReadUntil("GET /one ").find("HTTP/1.1 200 OK"), std::string::npos);
  c.Send("POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_NE(c.ReadUntil("POST /two abc").find("Content-Length: 13"), std::string::npos);
  c.Send("GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string last = c.ReadToClose();
  EXPECT_NE(last.find("Connection: close"), std::string::npos);
  EXPECT_NE(last.find("GET /three "), std::string::npos);
  EXPECT_TRUE(c.ClosedByPeer());
}

TEST(HttpServerWire, ExpectContinueIsAnsweredBeforeTheBodyIsSent) {
  auto server = MakeHttpServer({});
  server->Start(echo());
  LoopbackSocket c(server->port());
  c.Send("PUT /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  EXPECT_EQ(c.ReadUntil("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  c.Send("hello");
  const std::string reply = c.ReadUntil("PUT /up hello");
  EXPECT_NE(reply.find("HTTP/1.1 200 OK"), std::string::npos);
  EXPECT_NE(reply.find("PUT /up hello"), std::string::npos);
}

// A server refusing bodies over 10 bytes, counting the requests that reach its handler.
struct TenByteServer {
  TenByteServer() {
    HttpServerOptions options;
    options.max_request_body_bytes = 10;
    server = MakeHttpServer(options);
    server->Start([this](const HttpRequest&, HttpResponder r) {
      ++calls;
      r.Respond(HttpResponse::text(200, "ok"));
    });
  }
  std::unique_ptr<HttpServer> server;
  std::atomic<int> calls{0};
};

TEST(HttpServerWire, OversizedExpectContinueIs413WithoutContinue) {
  TenByteServer s;
  LoopbackSocket c(s.server->port());
  c.Send("POST /up HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n");
  const std::string reply = c.ReadToClose();
  EXPECT_EQ(reply.rfind("HTTP/1.1 413 ", 0), 0u) << reply;
  EXPECT_EQ(reply.find("100 Continue"), std::string::npos);
  EXPECT_NE(reply.find("request body of 11 bytes exceeds the limit of 10 bytes"), std::string::npos) << reply;
  EXPECT_TRUE(c.ClosedByPeer());
  EXPECT_EQ(s.calls.load(), 0);
}

TEST(HttpServerWire, ChunkedRequestBodyArrivesWhole) {
  auto server = MakeHttpServer({});
  server->Start(echo());
  LoopbackSocket c(server->port());
  c.Send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
  std::this_thread::sleep_for(20ms);  // the body arrives in pieces
  c.Send("6\r\n world\r\n0\r\n\r\n");
  EXPECT_NE(c.ReadUntil("POST /c hello world").find("POST /c hello world"), std::string::npos);
}

TEST(HttpServerWire, ChunkedBodyOverTheLimitIs413AndClosesTheConnection) {
  TenByteServer s;
  LoopbackSocket c(s.server->port());
  c.Send("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n");
  const std::string reply = c.ReadToClose();
  EXPECT_EQ(reply.rfind("HTTP/1.1 413 ", 0), 0u) << reply;
  EXPECT_NE(reply.find("exceeds the limit of 10 bytes"), std::string::npos) << reply;
  EXPECT_TRUE(c.ClosedByPeer());
  EXPECT_EQ(s.calls.load(), 0);
}

TEST(HttpServerWire, PipelinedRequestsAreAnsweredInOrder) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::vector<std::thread> late;
  std::atomic<int> handled{0};
  server->Start([&](const HttpRequest& req, HttpResponder r) {
    ++handled;
    if (req.path == "/slow") {
      // Answered later from another thread; the requests behind it must wait their turn.
      std::lock_guard lock(m);
      late.emplace_back([r = std::move(r)]() mutable {
        std::this_thread::sleep_for(100ms);
        r.Respond(HttpResponse::text(200, "first"));
      });
      return;
    }
    r.Respond(HttpResponse::text(200, req.path == "/b" ? "second" : "third"));
  });
  LoopbackSocket c(server->port());
  c.Send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const std::string all = c.ReadToClose();
  const auto first = all.find("first"), second = all.find("second"), third = all.find("third");
  ASSERT_NE(first, std::string::npos) << all;
  ASSERT_NE(second, std::string::npos) << all;
  ASSERT_NE(third, std::string::npos) << all;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(handled.load(), 3);
  std::lock_guard lock(m);
  for (auto& t : late) t.join();
}

TEST(HttpServerWire, Http10RequestGetsAnHttp10AnswerAndAClose) {
  auto server = MakeHttpServer({});
  server->Start(echo());
  LoopbackSocket c(server->port());
  c.Send("GET /old HTTP/1.0\r\n\r\n");
  const std::string reply = c.ReadToClose();
  EXPECT_EQ(reply.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("Content-Length: 9"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\r\n\r\nGET /old "), std::string::npos) << reply;
  EXPECT_TRUE(c.ClosedByPeer());
}

TEST(HttpServerWire, Http10StreamIsSentUnchunkedAndEndsWithTheConnection) {
  auto server = MakeHttpServer({});
  server->Start([](const HttpRequest&, HttpResponder r) {
    auto s = r.StartStream(200, {{"Content-Type", "application/json"}});
    s->Write("{\"a\":1}\n");
    s->Close();
  });
  LoopbackSocket c(server->port());
  c.Send("GET /watch HTTP/1.0\r\n\r\n");
  const std::string reply = c.ReadToClose();
  EXPECT_EQ(reply.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << reply;
  EXPECT_EQ(reply.find("chunked"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\r\n\r\n{\"a\":1}\n"), std::string::npos) << reply;
  EXPECT_TRUE(c.ClosedByPeer());
}

TEST(HttpServerWire, MalformedRequestLineIs400AndClosed) {
  auto server = MakeHttpServer({});
  std::atomic<int> calls{0};
  server->Start([&](const HttpRequest&, HttpResponder r) {
    ++calls;
    r.Respond(HttpResponse::text(200, "ok"));
  });
  for (const std::string garbage : {"GARBAGE\r\n\r\n", "GET / HTTP/9\r\n\r\n", "GET / HTTP/1.1\r\nBad Header\r\n\r\n"}) {
    LoopbackSocket c(server->port());
    c.Send(garbage);
    const std::string reply = c.ReadToClose();
    EXPECT_EQ(reply.rfind("HTTP/1.1 400 ", 0), 0u) << garbage << " -> " << reply;
    EXPECT_NE(reply.find("malformed request"), std::string::npos) << reply;
    EXPECT_TRUE(c.ClosedByPeer());
  }
  EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServerWire, HugeHeaderIs431) {
  auto server = MakeHttpServer({});
  server->Start(echo());
  LoopbackSocket c(server->port());
  c.Send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n");
  EXPECT_EQ(c.ReadToClose().rfind("HTTP/1.1 431 ", 0), 0u);
}

TEST(HttpServerWire, HeadersAreLowerCasedRepeatsCombinedAndContentTypeOnlyWhenSet) {
  auto server = MakeHttpServer({});
  HttpRequest seen;
  std::mutex m;
  server->Start([&](const HttpRequest& req, HttpResponder r) {
    {
      std::lock_guard lock(m);
      seen = req;
    }
    HttpResponse plain;
    plain.body = "x";
    plain.SetHeader("X-One", "1");
    r.Respond(std::move(plain));
  });
  LoopbackSocket c(server->port());
  c.Send("GET /p%2Fq?a=%20b HTTP/1.1\r\nHost: x\r\nX-Multi: a\r\nx-multi: b\r\nConnection: close\r\n\r\n");
  const std::string reply = c.ReadToClose();
  EXPECT_EQ(reply.find("Content-Type"), std::string::npos) << reply;
  EXPECT_NE(reply.find("X-One: 1"), std::string::npos) << reply;
  std::lock_guard lock(m);
  EXPECT_EQ(seen.path, "/p/q");
  EXPECT_EQ(seen.query, "a=%20b");
  EXPECT_EQ(seen.headers["x-multi"], "a, b");
  EXPECT_EQ(seen.headers["host"], "x");
}

TEST(HttpServerWire, IdleAndSlowClientsAreDisconnected) {
  HttpServerOptions options;
  options.idle_timeout = 200ms;
  options.request_read_timeout = 200ms;
  auto server = MakeHttpServer(options);
  server->Start(echo());
  LoopbackSocket idle(server->port());
  idle.Send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(idle.ReadUntil("GET /a ").find("200 OK"), std::string::npos);
  const auto start = std::chrono::steady_clock::now();
  idle.ReadToClose(3s);
  EXPECT_TRUE(idle.ClosedByPeer());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  LoopbackSocket slow(server->port());
  slow.Send("GET /a HTTP/1.1\r\nHost: x\r\n");  // headers never finished
  EXPECT_EQ(slow.ReadToClose(3s), "");
  EXPECT_TRUE(slow.ClosedByPeer());
}

// Deadlines are re-armed lazily (one timer wait per connection checks them): a connection that keeps
// sending requests lives well past the idle timeout, one that goes quiet is still closed on time, and a
// request whose body stalls mid-way is cut off by the read timeout even right after a busy spell.
TEST(HttpServerWire, BusyConnectionOutlivesTheIdleTimeoutAndAStalledOneDoesNot) {
  HttpServerOptions options;
  options.idle_timeout = 300ms;
  options.request_read_timeout = 300ms;
  auto server = MakeHttpServer(options);
  server->Start(echo());
  LoopbackSocket busy(server->port());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; std::chrono::steady_clock::now() - start < 1200ms; ++i) {
    const std::string path = "/r" + std::to_string(i);
    busy.Send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_NE(busy.ReadUntil("GET " + path + " ").find("200 OK"), std::string::npos) << "request " << i;
    ASSERT_FALSE(busy.ClosedByPeer());
    std::this_thread::sleep_for(100ms);
  }
  busy.Send("POST /stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");  // 7 bytes never come
  const auto stalled = std::chrono::steady_clock::now();
  busy.ReadToClose(3s);
  EXPECT_TRUE(busy.ClosedByPeer());
  EXPECT_LT(std::chrono::steady_clock::now() - stalled, 1500ms);
}

TEST(HttpServerWire, StreamNoticesAClientThatHangsUpWithoutAWrite) {
  auto server = MakeHttpServer({});
  std::atomic<bool> gone{false};
  server->Start([&](const HttpRequest&, HttpResponder r) { r.StartStream(200, {})->OnClosed([&] { gone = true; }); });
  {
    LoopbackSocket c(server->port());
    c.Send("GET /watch HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(c.ReadUntil("\r\n\r\n").find("Transfer-Encoding: chunked"), std::string::npos);
  }
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!gone && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(gone.load());
}

TEST(HttpServerWire, ConnectionStaysUsableAfterAStreamEnds) {
  auto server = MakeHttpServer({});
  server->Start([](const HttpRequest& req, HttpResponder r) {
    if (req.path != "/watch") return r.Respond(HttpResponse::text(200, "plain"));
    auto s = r.StartStream(200, {});
    s->Write("line\n");
    s->Close();
  });
  LoopbackSocket c(server->port());
  c.Send("GET /watch HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(c.ReadUntil("0\r\n\r\n").find("5\r\nline\n\r\n0\r\n\r\n"), std::string::npos);
  c.Send("GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(c.ReadToClose().find("plain"), std::string::npos);
}

}  // namespace
}  // namespace gangplank::net
