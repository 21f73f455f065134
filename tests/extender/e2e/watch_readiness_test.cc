// Issue 23: the extender's /readyz stayed 200 after its watches failed, so a cache going stale looked
// healthy. Against the real kube-apiserver through the fault proxy: ready after the first sync, 503
// naming the failing informer while every list and watch fails, ready again once the API server answers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cache/feed/cluster_state_feed.h"
#include "cache/feed/shared_informers.h"
#include "extender/service/routes.h"
#include "extender/service/watch_health.h"
#include "kube/config.h"
#include "tests/extender/support/loopback_client.h"
#include "tests/support/real_api_test.h"

namespace gangplank::extender {
namespace {

template <class Condition>
bool Eventually(Condition condition, std::chrono::seconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

using ExtenderReadiness = gangplank::testing::RealApiTest;

TEST_F(ExtenderReadiness, FalseWhileWatchesFailAndTrueAgainOnceTheyWork) {
  const auto dir = std::filesystem::temp_directory_path() / ("extender-ready-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = ProxyKubeconfig(dir);
  kube::InformerOptions informer_options;
  informer_options.backoff.initial = std::chrono::milliseconds(50);  // Quick retries keep the test short.
  informer_options.backoff.cap = std::chrono::milliseconds(400);
  informer_options.short_watch = std::chrono::milliseconds(0);
  cache::SharedInformers informers(std::make_shared<kube::RestClient>(kube::LoadKubeconfig({kubeconfig})),
                                   informer_options);
  cache::ClusterState state;
  cache::ClusterStateFeed feed(informers);
  feed.Attach(&state);
  informers.Start();
  feed.Start();
  ExtenderMetrics metrics;
  ExtenderHandlers handlers(state, metrics, {});
  const WatchHealth health(informers, 3);
  auto server = net::MakeHttpServer({});
  server->Start(MakeRouter(handlers, state, metrics, RouteConfig{}, nullptr, [&health] { return health.Problem(); }));
  testing::LoopbackClient client(server->port());

  EXPECT_TRUE(Eventually([&] { return client.Get("/readyz").status == 200; })) << "ready after the first sync";
  proxy().FailNext(gangplank::testing::ProxyFault::Status(503).Times(1000000));
  proxy().DropWatches();
  std::string why;
  EXPECT_TRUE(Eventually([&] {
    const auto reply = client.Get("/readyz");
    why = reply.body;
    return reply.status == 503;
  })) << "still ready while every list and watch fails";
  EXPECT_NE(why.find("failing"), std::string::npos) << why;
  EXPECT_NE(why.find("stale"), std::string::npos) << why;
  proxy().ClearFaults();
  EXPECT_TRUE(Eventually([&] { return client.Get("/readyz").status == 200; })) << "ready again once the API server answers";

  server->Stop();
  informers.Stop();
  feed.Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gangplank::extender
