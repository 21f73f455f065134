// The service over real loopback HTTP: verbs, status codes, limits and recovery after bad input.
#include <gtest/gtest.h>

#include "extender/service/routes.h"
#include "tests/extender/support/go_fixtures.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/cache/support/state_builders.h"

namespace gangplank::extender {
namespace {

using testing::Json;

class HttpTest : public ::testing::Test {
 protected:
  HttpTest() : handlers_(state_, metrics_, {}) {
    state_.UpsertNode(cache::testing::GpuNode("n1", 8));
    state_.UpsertNode(cache::testing::GpuNode("n2", 8));
    net::HttpServerOptions options;
    options.max_request_body_bytes = 1 << 20;
    server_ = net::MakeHttpServer(options);
    server_->Start(MakeRouter(handlers_, state_, metrics_, RouteConfig{"/gangplank/", "filter", "prioritize", "preempt"}));
  }
  ~HttpTest() override { server_->Stop(); }

  cache::ClusterState state_;
  ExtenderMetrics metrics_;
  ExtenderHandlers handlers_;
  std::unique_ptr<net::HttpServer> server_;
};

TEST_F(HttpTest, ReadinessFollowsTheCacheAndVerbsAnswer) {
  testing::LoopbackClient client(server_->port());
  EXPECT_EQ(client.Get("/healthz").status, 200);
  EXPECT_EQ(client.Get("/readyz").status, 503);
  state_.MarkSynced();
  EXPECT_EQ(client.Get("/readyz").status, 200);
  const std::string body = testing::FilterArgsByName(testing::GoPod({}), {"n1", "n2"});
  auto r = client.Post("/gangplank/filter", body);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(Json::parse(r.body)["NodeNames"], Json::array({"n1", "n2"}));
  r = client.Post("/gangplank/prioritize", body);
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(Json::parse(r.body).is_array());
  r = client.Post("/gangplank/preempt", testing::PreemptArgsMeta(testing::GoPod({}), {{"n1", {"x"}}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(client.Get("/gangplank/filter").status, 405);
  EXPECT_EQ(client.Get("/nope").status, 404);
}

TEST_F(HttpTest, BadInputGets400Or413AndTheServiceKeepsServing) {
  state_.MarkSynced();
  testing::LoopbackClient client(server_->port());
  for (const char* bad : {"", "{", "not json", R"({"Pod":[]})", R"({"Pod":{},"NodeNames":"n1"})", "\xff\xfe"}) {
    const auto r = client.Post("/gangplank/filter", bad);
    EXPECT_EQ(r.status, 400) << bad;
    const Json j = Json::parse(r.body);
    EXPECT_NE(j["Error"].get<std::string>().find("cannot decode ExtenderArgs"), std::string::npos) << r.body;
  }
  {
    testing::LoopbackClient big(server_->port());
    const auto r = big.Post("/gangplank/filter", std::string((1 << 20) + 1, ' '));
    EXPECT_EQ(r.status, 413);
    EXPECT_NE(r.body.find("exceeds the limit"), std::string::npos);
  }
  testing::LoopbackClient again(server_->port());
  const auto ok = again.Post("/gangplank/filter", testing::FilterArgsByName(testing::GoPod({}), {"n1"}));
  EXPECT_EQ(ok.status, 200);
  const auto metrics = again.Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find(R"(gangplank_extender_requests_total{code="400",verb="filter"} 6)"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find(R"(gangplank_extender_cache_objects{kind="nodes"} 2)"), std::string::npos);
  EXPECT_NE(metrics.body.find("gangplank_extender_request_duration_seconds_bucket{verb=\"filter\""), std::string::npos);
}

}  // namespace
}  // namespace gangplank::extender
