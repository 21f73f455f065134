// PrometheusClient against hand-rolled servers: what it sends (query encoding, path prefix, a rotated
// bearer token) and every way an answer can fail, each as a QueryError of its own kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "net/http_server.h"
#include "promql/prometheus_client.h"
#include "tests/extender/support/free_port.h"

namespace gangplank::promql {
namespace {

using Kind = QueryError::Kind;

const char kVectorBody[] =
    R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"a"},"value":[1,"5"]}]}})";

// A server answering every request with `answer`, remembering the last request.
class FakePrometheus {
 public:
  explicit FakePrometheus(net::HttpResponse answer) : answer_(std::move(answer)) {
    server_->Start(net::MakeSyncHandler([this](const net::HttpRequest& request) {
      std::lock_guard lock(mutex_);
      last_ = request;
      return answer_;
    }));
  }
  std::string BaseUrl() const { return server_->BaseUrl(); }
  net::HttpRequest last() {
    std::lock_guard lock(mutex_);
    return last_;
  }

 private:
  net::HttpResponse answer_;
  std::mutex mutex_;
  net::HttpRequest last_;
  std::unique_ptr<net::HttpServer> server_ = net::MakeHttpServer({});
};

QueryError ErrorFor(net::HttpResponse answer, PrometheusClientOptions options = {}) {
  FakePrometheus server(std::move(answer));
  options.base_url = server.BaseUrl();
  const auto result = PrometheusClient(options).Query("up");
  EXPECT_FALSE(result.ok());
  return result.ok() ? QueryError{} : result.error();
}

TEST(PrometheusClient, EncodesTheQueryBelowThePathPrefix) {
  FakePrometheus server(net::HttpResponse::json(200, kVectorBody));
  PrometheusClient client({.base_url = server.BaseUrl() + "/prom/"});
  const std::string promql = R"(avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{pod=~"a.+", namespace!=""}))";
  const auto result = client.Query(promql, Clock::time_point(std::chrono::milliseconds(1700000000250)));
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(server.last().path, "/prom/api/v1/query");
  EXPECT_EQ(server.last().QueryParam("query"), promql);
  EXPECT_EQ(server.last().QueryParam("time"), "1700000000.250");
}

TEST(PrometheusClient, RereadsTheTokenFileOnEveryCall) {
  FakePrometheus server(net::HttpResponse::json(200, kVectorBody));
  const auto token_file = std::filesystem::temp_directory_path() / ("promql-token-" + std::to_string(::getpid()));
  std::ofstream(token_file) << "first\n";
  PrometheusClient client(
      {.base_url = server.BaseUrl(), .bearer_token = "ignored", .bearer_token_file = token_file.string()});
  ASSERT_TRUE(client.Query("up").ok());
  EXPECT_EQ(server.last().header("authorization"), "Bearer first");
  std::ofstream(token_file) << "second";
  ASSERT_TRUE(client.Query("up").ok());
  EXPECT_EQ(server.last().header("authorization"), "Bearer second");
  std::filesystem::remove(token_file);
  EXPECT_EQ(client.Query("up").error().kind, Kind::kCredentials);
}

TEST(PrometheusClient, RefusedConnectionIsUnreachable) {
  const auto port = extender::testing::FreePort();
  PrometheusClient client({.base_url = "http://127.0.0.1:" + std::to_string(port)});
  const auto result = client.Query("up");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, Kind::kUnreachable) << result.error().message;
}

TEST(PrometheusClient, ServerErrorCarriesPrometheusErrorText) {
  const QueryError error =
      ErrorFor(net::HttpResponse::json(500, R"({"status":"error","errorType":"internal","error":"tsdb is closed"})"));
  EXPECT_EQ(error.kind, Kind::kHttpStatus);
  EXPECT_EQ(error.http_status, 500);
  EXPECT_EQ(error.error_type, "internal");
  EXPECT_NE(error.message.find("tsdb is closed"), std::string::npos) << error.message;
}

TEST(PrometheusClient, MalformedJsonAndHtmlAreMalformed) {
  EXPECT_EQ(ErrorFor(net::HttpResponse::json(200, R"({"status":"success","data":{"resu)")).kind, Kind::kMalformed);
  const QueryError html =
      ErrorFor(net::HttpResponse::text(200, "<html><body>login</body></html>").SetHeader("Content-Type", "text/html"));
  EXPECT_EQ(html.kind, Kind::kMalformed);
  EXPECT_NE(html.message.find("login"), std::string::npos) << html.message;
}

TEST(PrometheusClient, WrongResultTypeIsNamed) {
  const QueryError error =
      ErrorFor(net::HttpResponse::json(200, R"({"status":"success","data":{"resultType":"scalar","result":[1,"1"]}})"));
  EXPECT_EQ(error.kind, Kind::kWrongResultType);
}

TEST(PrometheusClient, OversizedBodyIsCutOff) {
  const QueryError error =
      ErrorFor(net::HttpResponse::json(200, std::string(3u << 20, ' ') + kVectorBody), {.max_body_bytes = 1u << 20});
  EXPECT_EQ(error.kind, Kind::kTooLarge) << error.message;
}

TEST(PrometheusClient, SilentServerTimesOut) {
  std::mutex mutex;
  std::vector<net::HttpResponder> held;  // answered only after the client gave up
  auto server = net::MakeHttpServer({});
  server->Start([&](const net::HttpRequest&, net::HttpResponder responder) {
    std::lock_guard lock(mutex);
    held.push_back(std::move(responder));
  });
  PrometheusClient client({.base_url = server->BaseUrl(), .timeout = std::chrono::milliseconds(300)});
  const auto started = std::chrono::steady_clock::now();
  const auto result = client.Query("up");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, Kind::kTimeout) << result.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  std::lock_guard lock(mutex);
  for (auto& responder : held) responder.Respond(net::HttpResponse::json(200, kVectorBody));
}

}  // namespace
}  // namespace gangplank::promql
