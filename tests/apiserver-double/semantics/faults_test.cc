// Fault injection (API and control endpoint), delays, dropped watches and restarts.
#include <thread>

#include "tests/apiserver-double/semantics/double_fixture.h"

namespace gangplank::apiserver_double::testing {
namespace {

using FaultsTest = DoubleTest;

TEST_F(FaultsTest, FailNextAnswersWithStatusAndRetryAfter) {
  server_->FailNext({.status = 429, .count = 2, .path_contains = "/nodes", .method = "", .retry_after_seconds = 3, .include_watches = true});
  auto a = call("GET", "/api/v1/nodes");
  EXPECT_EQ(a.status, 429);
  EXPECT_EQ(a.headers.at("retry-after"), "3");
  EXPECT_EQ(a.body["reason"], "TooManyRequests");
  EXPECT_EQ(a.body["details"]["retryAfterSeconds"], 3);
  EXPECT_EQ(call("GET", "/api/v1/namespaces").status, 200);  // other paths unaffected
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 429);
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);  // count exhausted
}

TEST_F(FaultsTest, ControlEndpointInjectsFaultsAndReportsState) {
  auto r = call("POST", "/_double/faults", {{"fail", {{"status", 500}, {"count", 1}, {"method", "POST"}}}});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);
  auto failed = call("POST", "/api/v1/nodes", {{"metadata", {{"name", "n"}}}});
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body["reason"], "InternalError");
  EXPECT_FALSE(server_->Get("nodes", "", "n"));
  EXPECT_EQ(call("POST", "/_double/faults", {{"fail", {{"status", 200}}}}).status, 400);
  auto state = call("GET", "/_double/state");
  EXPECT_EQ(state.body["resourceVersion"], server_->ResourceVersion());

  RawStream s(server_->port(), "/api/v1/nodes?watch=1&resourceVersion=" + server_->ResourceVersion());
  for (int i = 0; i < 500 && server_->OpenWatches() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(call("POST", "/_double/faults", {{"compact", true}}).status, 200);
  EXPECT_EQ(json::parse(s.next_line().value())["type"], "ERROR");
}

TEST_F(FaultsTest, DelayHoldsResponsesWithoutBlockingOthers) {
  server_->SetResponseDelay(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(290));
  server_->SetResponseDelay(std::chrono::milliseconds(0));
  const auto fast = std::chrono::steady_clock::now();
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);
  EXPECT_LT(std::chrono::steady_clock::now() - fast, std::chrono::milliseconds(250));
}

TEST_F(FaultsTest, DropWatchesEndsStreamsCleanly) {
  RawStream s(server_->port(), "/api/v1/nodes?watch=1");
  RawStream t(server_->port(), "/api/v1/namespaces?watch=1&resourceVersion=" + server_->ResourceVersion());
  for (int i = 0; i < 50 && server_->OpenWatches() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(server_->OpenWatches(), 2u);
  server_->DropWatches();
  s.read_all(std::chrono::seconds(3));
  t.read_all(std::chrono::seconds(3));
  EXPECT_TRUE(s.ended());
  EXPECT_TRUE(t.ended());
  for (int i = 0; i < 100 && server_->OpenWatches() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(server_->OpenWatches(), 0u);
}

TEST_F(FaultsTest, RestartKeepsOrDropsState) {
  server_->put({{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "kept"}}}});
  const uint16_t port = server_->port();
  const std::string rv = server_->ResourceVersion();
  server_->Restart(true);
  EXPECT_EQ(server_->port(), port);
  EXPECT_EQ(call("GET", "/api/v1/nodes/kept").status, 200);
  server_->Restart(false);
  EXPECT_EQ(call("GET", "/api/v1/nodes/kept").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/nodes?watch=1&resourceVersion=" + rv).status, 410);  // history is gone
  EXPECT_GT(std::stoull(server_->ResourceVersion()), std::stoull(rv));                // counter keeps going
}

TEST_F(FaultsTest, StoppedServerRefusesConnections) {
  server_->Stop();
  EXPECT_FALSE(server_->running());
  EXPECT_THROW(http_request(server_->port(), "GET", "/api/v1/nodes"), std::runtime_error);
  server_->Start();
  EXPECT_EQ(call("GET", "/api/v1/nodes").status, 200);
}

}  // namespace
}  // namespace gangplank::apiserver_double::testing
