// What keeps a client from stalling a listener (issue 31): a head check answers before a byte of the body
// is read (an unauthenticated request with a huge Content-Length is refused at once), a body nested
// deeper than the cap is refused before any handler parses it, a full listener sheds the connection that
// waited longest for the newcomer (and refuses it only when every slot is busy), and slow clients are cut
// at the request read timeout, a silent new connection too.
#include <gtest/gtest.h>

#include <any>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "net/http_server.h"
#include "tests/support/loopback_socket.h"

namespace gangplank::net {
namespace {

using namespace std::chrono_literals;
using gangplank::testing::LoopbackSocket;

const std::string kGet = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";

// Refuses every request without an Authorization header, 401, before its body.
HttpHeadCheck NeedsAuthorization() {
  return [](const HttpRequest& head, HttpHeadCheckDone done) {
    if (!head.header("authorization")) return done({HttpResponse::text(401, "who are you\n"), {}});
    done({std::nullopt, std::string("alice")});
  };
}

struct Counted {
  std::atomic<int> calls{0};
  HttpHandler handler() {
    return MakeSyncHandler([this](const HttpRequest& r) {
      ++calls;
      const auto* who = std::any_cast<std::string>(&r.context);
      return HttpResponse::text(200, (who ? *who : std::string("nobody")) + " " + std::to_string(r.body.size()) + " ok\n");
    });
  }
};

TEST(HeadCheck, AnUnauthenticatedRequestWithAHugeBodyIsRefusedBeforeTheBodyIsRead) {
  HttpServerOptions options;
  options.max_request_body_bytes = std::size_t{4} << 30;  // the size alone would let it in
  options.head_check = NeedsAuthorization();
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());

  LoopbackSocket socket(server->port());
  const auto start = std::chrono::steady_clock::now();
  // Headers only: a body of 3 GiB announced, not a byte of it sent.
  const std::string reply = socket.Exchange("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3221225472\r\n\r\n", 2000ms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s) << "answered at once, not after waiting for the body";
  EXPECT_NE(reply.find("401"), std::string::npos) << reply;
  EXPECT_NE(reply.find("who are you"), std::string::npos) << reply;
  EXPECT_NE(reply.find("Connection: close"), std::string::npos) << reply;

  // Expect: 100-continue gets the refusal, not a 100 Continue.
  LoopbackSocket expecting(server->port());
  const std::string refused = expecting.Exchange(
      "POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n", 2000ms);
  EXPECT_EQ(refused.find("100 Continue"), std::string::npos) << refused;
  EXPECT_NE(refused.find("401"), std::string::npos) << refused;
  EXPECT_EQ(counted.calls, 0);
  server->Stop();
}

TEST(HeadCheck, AnAcceptedRequestIsReadWholeAndCarriesWhatTheCheckLearnt) {
  HttpServerOptions options;
  std::vector<std::thread> reviewers;  // answers later, from another thread, as a TokenReview would
  options.head_check = [&reviewers](const HttpRequest& head, HttpHeadCheckDone done) {
    const bool known = head.header("authorization") == "Bearer alice" && head.body.empty();
    reviewers.emplace_back([known, done = std::move(done)] {
      std::this_thread::sleep_for(50ms);
      if (!known) return done({HttpResponse::text(401, "no\n"), {}});
      done({std::nullopt, std::string("alice")});
      done({HttpResponse::text(500, "a second answer is ignored\n"), {}});
    });
  };
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  const std::string body(100000, 'x');
  LoopbackSocket socket(server->port());
  const std::string reply = socket.Exchange("POST /x HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer alice\r\nContent-Length: " +
                                            std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_NE(reply.find("200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("alice 100000 ok"), std::string::npos) << reply;
  // The next request on the connection is checked again.
  const std::string second = socket.Exchange("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}");
  EXPECT_NE(second.find("401"), std::string::npos) << second;
  EXPECT_EQ(counted.calls, 1);
  server->Stop();
  for (auto& t : reviewers) t.join();
}

TEST(HeadCheck, ACheckThatNeverDecidesEndsAtTheRequestReadTimeout) {
  HttpServerOptions options;
  options.request_read_timeout = 300ms;
  std::vector<HttpHeadCheckDone> kept;  // never called
  options.head_check = [&kept](const HttpRequest&, HttpHeadCheckDone done) { kept.push_back(std::move(done)); };
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  LoopbackSocket socket(server->port());
  ASSERT_TRUE(socket.Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}"));
  const auto closed = socket.ClosedAfter(3s);
  EXPECT_GE(closed, 200ms);
  EXPECT_LT(closed, 2s) << "the connection is closed once the check outlives the deadline";
  server->Stop();
  for (auto& done : kept) done({std::nullopt, {}});  // after the connection is gone: ignored
  EXPECT_EQ(counted.calls, 0);
}

TEST(JsonDepth, ABodyNestedDeeperThanTheCapIsRefusedBeforeTheHandler) {
  HttpServerOptions options;
  options.max_json_depth = 8;
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  const auto post = [&](const std::string& body) {
    return LoopbackSocket(server->port())
        .Exchange("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  };
  const std::string deep = post(std::string(9, '[') + std::string(9, ']'));
  EXPECT_NE(deep.find("400 Bad Request"), std::string::npos) << deep;
  EXPECT_NE(deep.find("nests deeper than 8 levels"), std::string::npos) << deep;
  EXPECT_EQ(counted.calls, 0);
  EXPECT_NE(post(std::string(8, '[') + std::string(8, ']')).find("200 OK"), std::string::npos);
  EXPECT_NE(post(R"({"a":"[[[[[[[[[[[[[[[[[[[["})").find("200 OK"), std::string::npos) << "brackets in a string do not count";
  EXPECT_EQ(counted.calls, 2);
  server->Stop();
}

TEST(Shedding, AFullListenerClosesTheConnectionThatWaitedLongestForTheNewcomer) {
  HttpServerOptions options;
  options.max_connections = 4;
  options.shed_waiting_at_limit = true;
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  std::vector<LoopbackSocket> idle;  // connected, silent: what a client holding slots does
  for (int i = 0; i < 4; ++i) {
    idle.emplace_back(server->port());
    std::this_thread::sleep_for(20ms);  // an order the server sees
  }
  for (int round = 0; round < 3; ++round) {
    LoopbackSocket probe(server->port());
    EXPECT_NE(probe.Exchange(kGet).find("200 OK"), std::string::npos) << "round " << round;
  }
  EXPECT_GE(idle[0].ClosedAfter(2s), 0ms) << "the oldest silent connection gave way";
  server->Stop();
}

TEST(Shedding, ConnectionsBusyWithARequestAreNotShedAndTheNewcomerIsRefused) {
  HttpServerOptions options;
  options.max_connections = 2;
  options.shed_waiting_at_limit = true;
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  std::vector<LoopbackSocket> busy;  // each in the middle of a body
  for (int i = 0; i < 2; ++i) {
    busy.emplace_back(server->port());
    ASSERT_TRUE(busy.back().Send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12345"));
  }
  std::this_thread::sleep_for(100ms);
  LoopbackSocket extra(server->port());
  EXPECT_EQ(extra.Exchange(kGet, 1000ms), "") << "closed without an answer";
  ASSERT_TRUE(busy[0].Send("67890"));
  EXPECT_NE(busy[0].ReadAnswer().find("200 OK"), std::string::npos) << "the busy request was not disturbed";
  server->Stop();
}

TEST(SlowClients, ANewConnectionThatSendsNothingIsClosedAtTheRequestReadTimeoutNotTheIdleTimeout) {
  HttpServerOptions options;
  options.request_read_timeout = 300ms;
  options.idle_timeout = 60s;
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  LoopbackSocket silent(server->port());
  const auto closed = silent.ClosedAfter(5s);
  EXPECT_GE(closed, 200ms);
  EXPECT_LT(closed, 2s);
  server->Stop();
}

TEST(SlowClients, HeadersOrABodyTrickledPastTheRequestReadTimeoutAreCut) {
  HttpServerOptions options;
  options.request_read_timeout = 500ms;
  auto server = MakeHttpServer(options);
  Counted counted;
  server->Start(counted.handler());
  for (const std::string& head : {std::string("GET /x HTTP/1.1\r\nHost: a\r\nX-Slow: "),
                                 std::string("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n")}) {
    LoopbackSocket slow(server->port());
    ASSERT_TRUE(slow.Send(head));
    const auto start = std::chrono::steady_clock::now();
    bool cut = false;
    while (std::chrono::steady_clock::now() - start < 5s && !cut) {
      cut = !slow.Send("x");  // a byte every 50 ms, for as long as the server listens
      if (!cut) cut = slow.ClosedAfter(50ms) >= 0ms;
    }
    EXPECT_TRUE(cut) << head;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << head;
  }
  EXPECT_EQ(counted.calls, 0);
  server->Stop();
}

}  // namespace
}  // namespace gangplank::net
