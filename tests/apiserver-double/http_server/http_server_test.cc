// The project's HTTP server interface, exercised over real sockets with the raw test client.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include "net/http_server.h"
#include "tests/apiserver-double/support/raw_http.h"
#include "tests/apiserver-double/support/subprocess.h"

namespace gangplank::net {
namespace {

using apiserver_double::testing::http_request;
using apiserver_double::testing::RawStream;

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
  auto server = make_http_server({});
  HttpRequest seen;
  std::mutex m;
  server->start(make_sync_handler([&](const HttpRequest& req) {
    std::lock_guard lock(m);
    seen = req;
    return HttpResponse::json(201, R"({"ok":true})").set_header("X-Test", "yes");
  }));
  ASSERT_NE(server->port(), 0);
  EXPECT_EQ(server->base_url(), "http://127.0.0.1:" + std::to_string(server->port()));
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
  EXPECT_EQ(seen.query_param("label").value_or(""), "app=web");
  EXPECT_EQ(seen.query_param("flag").value_or("absent"), "");
  EXPECT_EQ(seen.query_param("plus").value_or(""), "a b");
  EXPECT_FALSE(seen.query_param("missing"));
}

TEST(HttpServer, OversizedBodyIs413AndNeverReachesHandler) {
  HttpServerOptions options;
  options.max_request_body_bytes = 100;
  auto server = make_http_server(options);
  std::atomic<int> calls{0};
  server->start(make_sync_handler([&](const HttpRequest&) {
    ++calls;
    return HttpResponse::text(200, "ok");
  }));
  EXPECT_EQ(http_request(server->port(), "POST", "/x", std::string(101, 'a')).status, 413);
  EXPECT_EQ(http_request(server->port(), "POST", "/x", std::string(100, 'a')).status, 200);
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServer, HandlerExceptionsAndUnansweredRequestsBecome500) {
  auto server = make_http_server({});
  server->start([](const HttpRequest& req, HttpResponder responder) {
    if (req.path == "/throw") throw std::runtime_error("boom");
    if (req.path == "/drop") return;  // responder destroyed without an answer
    responder.respond(HttpResponse::text(200, "fine"));
  });
  auto thrown = http_request(server->port(), "GET", "/throw");
  EXPECT_EQ(thrown.status, 500);
  EXPECT_NE(thrown.body.find("boom"), std::string::npos);
  EXPECT_EQ(http_request(server->port(), "GET", "/drop").status, 500);
  EXPECT_EQ(http_request(server->port(), "GET", "/ok").body, "fine");
}

TEST(HttpServer, RespondersCanAnswerLaterFromAnotherThread) {
  auto server = make_http_server({});
  std::mutex m;
  std::vector<std::thread> workers;
  server->start([&](const HttpRequest&, HttpResponder responder) {
    std::lock_guard lock(m);
    workers.emplace_back([r = std::move(responder)]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      r.respond(HttpResponse::text(200, "late"));
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
  auto server = make_http_server({});
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  server->start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.start_stream(200, {{"Content-Type", "application/json"}});
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
  EXPECT_TRUE(s->write("{\"a\":1}\n{\"b\""));
  EXPECT_EQ(client.next_line().value_or(""), "{\"a\":1}");  // delivered before the stream ends
  EXPECT_TRUE(s->write(":2}\n"));
  EXPECT_EQ(client.next_line().value_or(""), "{\"b\":2}");
  bool closed_called = false;
  s->on_closed([&] { closed_called = true; });
  s->close();
  EXPECT_TRUE(closed_called);
  EXPECT_FALSE(s->write("late\n"));
  client.read_all();
  EXPECT_TRUE(client.ended());
}

TEST(HttpServer, StreamNoticesClientThatWentAway) {
  auto server = make_http_server({});
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  std::atomic<bool> gone{false};
  server->start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.start_stream(200, {});
    s->on_closed([&] { gone = true; });
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
    s->write(std::string(1024, 'x') + "\n");
    return gone.load();
  }));
  EXPECT_TRUE(s->closed());
}

TEST(HttpServer, SlowReaderIsCutOffAtTheBufferLimit) {
  HttpServerOptions options;
  options.max_stream_buffer_bytes = 1 << 20;
  auto server = make_http_server(options);
  std::mutex m;
  std::shared_ptr<HttpResponseStream> stream;
  server->start([&](const HttpRequest&, HttpResponder responder) {
    auto s = responder.start_stream(200, {});
    std::lock_guard lock(m);
    stream = s;
  });
  RawStream client(server->port(), "/watch");  // never reads
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(m);
    return stream != nullptr;
  }));
  const std::string block(64 * 1024, 'y');
  int accepted = 0;
  while (stream->write(block) && accepted < 10000) ++accepted;
  EXPECT_LT(accepted, 10000);
  EXPECT_TRUE(stream->closed());
}

TEST(HttpServer, StopEndsStreamsAndRefusesNewConnections) {
  auto server = make_http_server({});
  std::atomic<bool> ended{false};
  server->start([&](const HttpRequest&, HttpResponder responder) {
    responder.start_stream(200, {})->on_closed([&] { ended = true; });
  });
  const uint16_t port = server->port();
  RawStream client(port, "/watch");
  ASSERT_TRUE(eventually([&] { return client.status() == 200; }));
  server->stop();
  EXPECT_TRUE(ended.load());
  EXPECT_THROW(http_request(port, "GET", "/"), std::runtime_error);
  server->stop();  // idempotent
}

TEST(HttpServer, BusyPortIsReported) {
  auto first = make_http_server({});
  first->start(make_sync_handler([](const HttpRequest&) { return HttpResponse::text(200, "a"); }));
  HttpServerOptions options;
  options.port = first->port();
  auto second = make_http_server(options);
  EXPECT_THROW(second->start(make_sync_handler([](const HttpRequest&) { return HttpResponse::text(200, "b"); })), std::runtime_error);
}

// Self-signed certificate for 127.0.0.1, written as PEM files.
void write_self_signed(const std::string& cert_path, const std::string& key_path) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_sign(cert, key, EVP_sha256());
  FILE* c = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(c, cert);
  std::fclose(c);
  FILE* k = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(k);
  X509_free(cert);
  EVP_PKEY_free(key);
}

TEST(HttpServer, ServesHttpsWithCertificateFiles) {
  const std::string dir = ::testing::TempDir();
  const std::string cert = dir + "/srv-" + std::to_string(::getpid()) + ".crt";
  const std::string key = dir + "/srv-" + std::to_string(::getpid()) + ".key";
  write_self_signed(cert, key);
  HttpServerOptions options;
  options.tls = HttpTlsFiles{cert, key};
  auto server = make_http_server(options);
  server->start(make_sync_handler([](const HttpRequest& req) { return HttpResponse::text(200, "secure " + req.path); }));
  EXPECT_EQ(server->base_url().rfind("https://", 0), 0u);
  ASSERT_EQ(::access(GANGPLANK_CURL, X_OK), 0) << "curl is needed (scripts/install-deps.sh installs it)";
  auto r = apiserver_double::testing::run_process({GANGPLANK_CURL, "-sk", server->base_url() + "/hello"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "secure /hello");
  HttpServerOptions missing;
  missing.tls = HttpTlsFiles{dir + "/nope.crt", key};
  EXPECT_THROW(make_http_server(missing)->start(make_sync_handler([](const HttpRequest&) { return HttpResponse{}; })),
               std::runtime_error);
}

}  // namespace
}  // namespace gangplank::net
