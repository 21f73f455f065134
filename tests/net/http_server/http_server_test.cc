// The project's HTTP server interface, exercised over real sockets with the raw test client.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "net/http_server.h"
#include "tests/support/raw_http.h"

namespace gangplank::net {
namespace {

using gangplank::testing::http_request;
using gangplank::testing::RawStream;

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

TEST(HttpServer, ParsesRequestAndPicksEphemeralPort) {
  auto server = MakeHttpServer({});
  HttpRequest seen;
  std::mutex m;
  server->Start(MakeSyncHandler([&](const HttpRequest& req) {
    std::lock_guard lock(m);
    seen = req;
    return HttpResponse::json(201, R"({"ok":true})").SetHeader("X-Test", "yes");
  }));
  ASSERT_NE(server->port(), 0);
  EXPECT_EQ(server->BaseUrl(), "http://127.0.0.1:" + std::to_string(server->port()));
  auto r = http_request(server->port(), "POST", "/a%20b/c?x=1&label=app%3Dweb&flag&plus=a+b", "hello", {{"X-Custom", "V"}});
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.body, R"({"ok":true})");
  EXPECT_EQ(r.headers["x-test"], "yes");
  EXPECT_EQ(r.headers["content-type"], "application/json");
  std::lock_guard lock(m);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/a b/c");
  EXPECT_EQ(seen.body, "hello");
  EXPECT_EQ(seen.header("x-custom").value_or(""), "V");
  EXPECT_EQ(seen.header("X-CUSTOM").value_or(""), "V");
  EXPECT_EQ(seen.QueryParam("label").value_or(""), "app=web");
  EXPECT_EQ(seen.QueryParam("flag").value_or("absent"), "");
  EXPECT_EQ(seen.QueryParam("plus").value_or(""), "a b");
  EXPECT_FALSE(seen.QueryParam("missing"));
}

TEST(HttpServer, OversizedBodyIs413AndNeverReachesHandler) {
  HttpServerOptions options;
  options.max_request_body_bytes = 100;
  auto server = MakeHttpServer(options);
  std::atomic<int> calls{0};
  server->Start(MakeSyncHandler([&](const HttpRequest&) {
    ++calls;
    return HttpResponse::text(200, "ok");
  }));
  EXPECT_EQ(http_request(server->port(), "POST", "/x", std::string(101, 'a')).status, 413);
  EXPECT_EQ(http_request(server->port(), "POST", "/x", std::string(100, 'a')).status, 200);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServer, HandlerExceptionsAndUnansweredRequestsBecome500) {
  auto server = MakeHttpServer({});
  server->Start([](const HttpRequest& req, HttpResponder responder) {
    if (req.path == "/throw") throw std::runtime_error("boom");
    if (req.path == "/drop") return;  // responder destroyed without an answer
    responder.Respond(HttpResponse::text(200, "fine"));
  });
  auto thrown = http_request(server->port(), "GET", "/throw");
  EXPECT_EQ(thrown.status, 500);
  EXPECT_NE(thrown.body.find("boom"), std::string::npos);
  EXPECT_EQ(http_request(server->port(), "GET", "/drop").status, 500);
  EXPECT_EQ(http_request(server->port(), "GET", "/ok").body, "fine");
}

TEST(HttpServer, RespondersCanAnswerLaterFromAnotherThread) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::vector<std::thread> workers;
  server->Start([&](const HttpRequest&, HttpResponder responder) {
    std::lock_guard lock(m);
    workers.emplace_back([r = std::move(responder)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      r.Respond(HttpResponse::text(200, "late"));
    });
  });
  // Many more concurrent slow requests than listener threads would allow if the handler blocked.
  std::vector<std::thread> clients;
  std::atomic<int> good{0};
  for (int i = 0; i < 60; ++i) {
    clients.emplace_back([&] {
      if (http_request(server->port(), "GET", "/slow").body == "late") ++good;
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(good.load(), 60);
  std::lock_guard lock(m);
  for (auto& w : workers) w.join();
}

TEST(HttpServer, StreamsChunksAsWrittenAndEndsOnClose) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  server->Start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.StartStream(200, {{"Content-Type", "application/json"}});
    std::lock_guard lock(m);
    stream = s;
  });
  RawStream client(server->port(), "/watch");
  EXPECT_EQ(client.status(), 200);
  EXPECT_EQ(client.headers().at("transfer-encoding"), "chunked");
  std::shared_ptr<HttpResponseStream> s;
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    s = stream;
    return s != nullptr;
  }));
  EXPECT_TRUE(s->Write("{\"a\":1}\n{\"b\""));
  EXPECT_EQ(client.next_line().value_or(""), "{\"a\":1}");  // delivered before the stream ends
  EXPECT_TRUE(s->Write(":2}\n"));
  EXPECT_EQ(client.next_line().value_or(""), "{\"b\":2}");
  bool closed_called = false;
  s->OnClosed([&] { closed_called = true; });
  s->Close();
  EXPECT_TRUE(closed_called);
  EXPECT_FALSE(s->Write("late\n"));
  client.read_all();
  EXPECT_TRUE(client.ended());
}

TEST(HttpServer, StreamNoticesClientThatWentAway) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  std::atomic<bool> gone{false};
  server->Start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.StartStream(200, {});
    s->OnClosed([&] { gone = true; });
    std::lock_guard lock(m);
    stream = s;
  });
  {
    RawStream client(server->port(), "/watch");
    ASSERT_TRUE(eventually([&] {
      std::lock_guard lock(m);
      return stream != nullptr;
    }));
  }  // client disconnects
  std::shared_ptr<HttpResponseStream> s;
  {
    std::lock_guard lock(m);
    s = stream;
  }
  // The server learns it on the next writes (the socket is not read while a response streams).
  EXPECT_TRUE(eventually([&] {
    s->Write(std::string(1024, 'x') + "\n");
    return gone.load();
  }));
  EXPECT_TRUE(s->closed());
}

TEST(HttpServer, SlowReaderIsCutOffAtTheBufferLimit) {
  HttpServerOptions options;
  options.max_stream_buffer_bytes = 1 << 20;
  auto server = MakeHttpServer(options);
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  server->Start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.StartStream(200, {});
    std::lock_guard lock(m);
    stream = s;
  });
  RawStream client(server->port(), "/watch");  // never reads
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    return stream != nullptr;
  }));
  std::atomic<int> closed_calls{0};
  stream->OnClosed([&] { ++closed_calls; });
  const std::string block(64 * 1024, 'y');
  int accepted = 0;
  while (stream->Write(block) && accepted < 10000) ++accepted;
  EXPECT_LT(accepted, 10000);
  EXPECT_TRUE(stream->closed());
  EXPECT_EQ(stream->BufferedBytes(), 0u);
  EXPECT_EQ(closed_calls.load(), 1);
  stream->Close();  // already ended: no second callback
  EXPECT_EQ(closed_calls.load(), 1);
  client.read_all(std::chrono::seconds(10));
  EXPECT_TRUE(client.ended());  // the server dropped the connection
}

TEST(HttpServer, StopEndsStreamsAndRefusesNewConnections) {
  auto server = MakeHttpServer({});
  std::atomic<bool> ended{false};
  server->Start([&](const HttpRequest&, HttpResponder responder) {
    responder.StartStream(200, {})->OnClosed([&] { ended = true; });
  });
  const uint16_t port = server->port();
  RawStream client(port, "/watch");
  ASSERT_TRUE(eventually([&] { return client.status() == 200; }));
  server->Stop();
  EXPECT_TRUE(ended.load());
  EXPECT_THROW(http_request(port, "GET", "/"), std::runtime_error);
  server->Stop();  // idempotent
}

TEST(HttpServer, BusyPortIsReported) {
  auto first = MakeHttpServer({});
  first->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "a"); }));
  HttpServerOptions options;
  options.port = first->port();
  auto second = MakeHttpServer(options);
  try {
    second->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse::text(200, "b"); }));
    ADD_FAILURE() << "a second server bound a busy port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(first->port())), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("in use"), std::string::npos) << e.what();
  }
  HttpServerOptions bad_host;
  bad_host.host = "no-such-host.invalid";
  EXPECT_THROW(MakeHttpServer(bad_host)->Start(MakeSyncHandler([](const HttpRequest&) { return HttpResponse{}; })),
               std::runtime_error);
}

TEST(HttpServer, StopEndsStreamsAndWaitsBoundedForAnUnansweredRequest) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::vector<HttpResponder> parked;
  std::atomic<int> stream_closed{0};
  server->Start([&](const HttpRequest& req, HttpResponder r) {
    if (req.path == "/watch") {
      r.StartStream(200, {})->OnClosed([&] { ++stream_closed; });
      return;
    }
    std::lock_guard lock(m);
    parked.push_back(std::move(r));  // never answered before stop()
  });
  RawStream watch(server->port(), "/watch");
  ASSERT_EQ(watch.status(), 200);
  std::thread hanging([&] { EXPECT_THROW(http_request(server->port(), "GET", "/hang", "", {}, std::chrono::seconds(20)), std::runtime_error); });
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    return parked.size() == 1;
  }));
  const auto start = std::chrono::steady_clock::now();
  server->Stop();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(stream_closed.load(), 1);
  EXPECT_GE(took, std::chrono::seconds(4));   // waited for the unanswered request...
  EXPECT_LT(took, std::chrono::seconds(9));   // ...but only up to the bound
  watch.read_all();
  EXPECT_TRUE(watch.ended());
  hanging.join();  // its connection was closed without an answer
  std::lock_guard lock(m);
  parked.front().Respond(HttpResponse::text(200, "too late"));  // after stop(): dropped, no crash
  parked.clear();
  server.reset();
}

TEST(HttpServer, StopLetsAnAnswerInProgressFinish) {
  auto server = MakeHttpServer({});
  std::mutex m;
  std::vector<std::thread> workers;
  server->Start([&](const HttpRequest&, HttpResponder r) {
    std::lock_guard lock(m);
    workers.emplace_back([r = std::move(r)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      r.Respond(HttpResponse::text(200, "finished"));
    });
  });
  std::atomic<bool> got{false};
  std::thread client([&] { got = http_request(server->port(), "GET", "/x").body == "finished"; });
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    return workers.size() == 1;
  }));
  const auto start = std::chrono::steady_clock::now();
  server->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  client.join();
  EXPECT_TRUE(got.load());
  std::lock_guard lock(m);
  for (auto& w : workers) w.join();
}

TEST(HttpServer, RespondersOutliveTheServerSafely) {
  std::vector<HttpResponder> kept;
  std::shared_ptr<HttpResponseStream> stream;
  {
    std::mutex m;
    auto server = MakeHttpServer({});
    server->Start([&](const HttpRequest& req, HttpResponder r) {
      std::lock_guard lock(m);
      if (req.path == "/watch") {
        stream = r.StartStream(200, {});
      } else {
        kept.push_back(std::move(r));
      }
    });
    RawStream watch(server->port(), "/watch");
    std::thread t([&] {
      try {
        http_request(server->port(), "GET", "/k", "", {}, std::chrono::seconds(20));
      } catch (const std::exception&) {
        // closed by stop()
      }
    });
    ASSERT_TRUE(eventually([&] {
      std::lock_guard lock(m);
      return kept.size() == 1 && stream != nullptr;
    }));
    kept.front().Respond(HttpResponse::text(200, "now"));  // answered: stop() need not wait
    t.join();
  }  // server destroyed
  EXPECT_TRUE(stream->closed());
  EXPECT_FALSE(stream->Write("late\n"));
  kept.clear();
  stream.reset();
}

}  // namespace
}  // namespace gangplank::net
