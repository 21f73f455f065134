// Issue 23's load test: three concurrent filter calls with bodies at the verb limit, two more announcing
// 64 MiB, and a hundred idle connections, all at once, must not delay a small filter call past
// kube-scheduler's 5 s extender timeout. The server runs as gangplank-extender configures it (body
// limit per route, connection limit, two io threads). Timings are printed; the assertion is generous.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>
#include <vector>

#include "extender/service/routes.h"
#include "tests/support/raw_http.h"
#include "tests/cache/support/state_builders.h"
#include "tests/extender/support/go_fixtures.h"
#include "tests/extender/support/loopback_client.h"

namespace gangplank::extender {
namespace {

using Clock = std::chrono::steady_clock;
using testing::Json;

constexpr std::size_t kVerbBodyBytes = 16u << 20;  // gangplank-extender's --max-body-bytes default.

Json SmallPod() {
  testing::PodSpecFixture p;
  p.name = "small";
  p.namespace_ = "ml";
  p.uid = "uid-small";
  p.containers = {{{{"cpu", "1"}, {"nvidia.com/gpu", "1"}}, {{"nvidia.com/gpu", "1"}}}};
  return testing::GoPod(p);
}

// A filter body just under the verb limit: the pod and as many made-up node names as fit.
std::string LargeFilterBody() {
  std::vector<std::string> names;
  const std::size_t per_name = 30;  // "node-0000000000000000000000" plus quotes and comma.
  for (std::size_t i = 0; names.size() * per_name < kVerbBodyBytes - (1u << 20); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "node-%022zu", i);
    names.emplace_back(name);
  }
  std::string body = testing::FilterArgsByName(SmallPod(), names);
  EXPECT_LT(body.size(), kVerbBodyBytes);
  return body;
}

// A connection that never sends a byte; -1 when refused.
int ConnectIdle(std::uint16_t port) {
  try {
    return gangplank::testing::connect_loopback(port);
  } catch (const std::runtime_error&) {
    return -1;
  }
}

TEST(ExtenderUnderLoad, ASmallFilterCallIsAnsweredWellInsideTheSchedulersTimeout) {
  cache::ClusterState state;
  for (int i = 0; i < 100; ++i) state.UpsertNode(cache::testing::GpuNode("gpu-" + std::to_string(i), 8));
  state.MarkSynced();
  ExtenderMetrics metrics;
  ExtenderHandlers handlers(state, metrics, {});
  const RouteConfig routes{"/gangplank", "filter", "prioritize", "preempt", ""};
  net::HttpServerOptions options;  // As gangplank-extender's main.cc sets it up with its defaults.
  options.body_limit = MakeBodyLimit(routes, kVerbBodyBytes);
  options.max_connections = 128;
  auto server = net::MakeHttpServer(options);
  server->Start(MakeRouter(handlers, state, metrics, routes));
  const std::uint16_t port = server->port();

  std::vector<int> idle;
  for (int i = 0; i < 100; ++i) idle.push_back(ConnectIdle(port));
  const std::string large = LargeFilterBody();
  std::atomic<int> large_answered{0}, oversized_refused{0};
  std::atomic<bool> loading{true};
  std::vector<std::thread> attackers;
  for (int i = 0; i < 3; ++i) {
    attackers.emplace_back([&] {
      testing::LoopbackClient client(port);
      while (loading) {
        if (client.Post("/gangplank/filter", large).status == 200) ++large_answered;
      }
    });
  }
  for (int i = 0; i < 2; ++i) {
    attackers.emplace_back([&] {
      while (loading) {
        const int fd = ConnectIdle(port);
        const std::string head = "POST /gangplank/filter HTTP/1.1\r\nHost: a\r\nContent-Length: 67108864\r\n\r\n";
        (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
        char reply[64] = {};
        if (::recv(fd, reply, sizeof reply - 1, 0) > 0 && std::string(reply).find(" 413 ") != std::string::npos) {
          ++oversized_refused;
        }
        ::close(fd);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Let the large bodies be in flight.
  const std::string small = testing::FilterArgsByName(SmallPod(), {"gpu-1", "gpu-2", "gpu-3"});
  Clock::duration worst{};
  for (int i = 0; i < 10; ++i) {
    const auto start = Clock::now();
    testing::LoopbackClient client(port);  // A fresh connection, as after kube-scheduler's idle close.
    const auto reply = client.Post("/gangplank/filter", small);
    const auto took = Clock::now() - start;
    worst = std::max(worst, took);
    EXPECT_EQ(reply.status, 200);
    EXPECT_NE(reply.body.find(R"("NodeNames":["gpu-1","gpu-2","gpu-3"])"), std::string::npos) << reply.body.substr(0, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  loading = false;
  for (auto& t : attackers) t.join();
  for (const int fd : idle) ::close(fd);
  server->Stop();
  const double worst_ms = std::chrono::duration<double, std::milli>(worst).count();
  std::printf("large bodies: %zu bytes, %d answered; oversized refused: %d; small filter worst: %.1f ms\n", large.size(),
              large_answered.load(), oversized_refused.load(), worst_ms);
  EXPECT_GT(large_answered.load(), 0) << "the large bodies were really served";
  EXPECT_GT(oversized_refused.load(), 0);
  EXPECT_LT(worst_ms, 5000.0) << "kube-scheduler's extender httpTimeout";
}

}  // namespace
}  // namespace gangplank::extender
