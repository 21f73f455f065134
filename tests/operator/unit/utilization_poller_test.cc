// UtilizationPoller (operator/utilization/utilization_poller.h): each pool reads from its own
// spec.utilization or the operator's defaults, one read serves every pool asking the same, pools with no
// Prometheus are not read, and a failed read is reported per pool without stopping the others.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "operator/metrics/operator_metrics.h"
#include "operator/utilization/utilization_poller.h"
#include "tests/support/prometheus_text.h"

namespace gangplank::op {
namespace {

class FakeSource : public UtilizationSource {
 public:
  PodUtilizationSnapshot Read(const std::string& url, const std::string& query, double now) override {
    reads.emplace_back(url, query);
    PodUtilizationSnapshot s;
    s.at = now;
    s.ok = url != "http://down:9090";
    if (!s.ok) {
      s.error = "connection refused";
      s.reason = "unreachable";
    } else {
      s.percent[{"ml", "p-" + url}] = 42;
    }
    return s;
  }
  std::vector<std::pair<std::string, std::string>> reads;
};

cache::PoolConfig Pool(const std::string& name, const std::string& url = "", const std::string& query = "") {
  cache::PoolConfig p;
  p.name = name;
  p.utilization.prometheus_url = url;
  p.utilization.query = query;
  return p;
}

TEST(UtilizationPoller, EachPoolReadsItsOwnPrometheusOrTheDefaultOncePerDistinctQuery) {
  FakeSource source;
  OperatorMetrics metrics;
  std::vector<cache::PoolConfig> pools = {Pool("a"), Pool("b"), Pool("c", "http://other:9090", "q2"),
                                          Pool("d", "http://down:9090")};
  UtilizationPoller poller(source, &metrics.usage(), {"http://prom:9090", "", 30}, [&] { return pools; }, nullptr);
  poller.PollOnce(100);
  EXPECT_EQ(source.reads, (std::vector<std::pair<std::string, std::string>>{
                              {"http://prom:9090", kDefaultUtilizationQuery},
                              {"http://other:9090", "q2"},
                              {"http://down:9090", kDefaultUtilizationQuery}}));
  const auto latest = poller.Latest();
  ASSERT_EQ(latest->size(), 4u);
  EXPECT_EQ(latest->at("a"), latest->at("b"));  // One read serves both.
  EXPECT_EQ(latest->at("c")->Of("ml", "p-http://other:9090"), 42);
  EXPECT_FALSE(latest->at("d")->ok);
  const std::string text = metrics.Scrape();
  using gangplank::testing::SumOfMetric;
  EXPECT_EQ(SumOfMetric(text, "gangplank_operator_utilization_up", {"pool=\"a\""}), 1);
  EXPECT_EQ(SumOfMetric(text, "gangplank_operator_utilization_up", {"pool=\"d\""}), 0);
  EXPECT_EQ(SumOfMetric(text, "gangplank_operator_utilization_query_failures_total", {"pool=\"d\"", "reason=\"unreachable\""}), 1);
}

TEST(UtilizationPoller, PoolsWithNoPrometheusAreNotRead) {
  FakeSource source;
  std::vector<cache::PoolConfig> pools = {Pool("a"), Pool("b", "http://prom:9090")};
  UtilizationPoller poller(source, nullptr, {}, [&] { return pools; }, nullptr);
  poller.PollOnce(5);
  EXPECT_EQ(source.reads.size(), 1u);
  EXPECT_EQ(poller.Latest()->count("a"), 0u);
  EXPECT_EQ(poller.Latest()->count("b"), 1u);
}

TEST(UtilizationPoller, ItsThreadReadsAtItsIntervalAndSaysSoAfterEachPass) {
  FakeSource source;
  std::vector<cache::PoolConfig> pools = {Pool("a", "http://prom:9090")};
  std::atomic<int> passes{0};
  UtilizationPoller poller(source, nullptr, {"", "", 0.05}, [&] { return pools; }, [&] { ++passes; });
  poller.Start();
  for (int i = 0; i < 200 && passes < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  poller.Stop();
  EXPECT_GE(passes.load(), 3);
  const int after = passes;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(passes.load(), after);  // Stopped means stopped.
}

}  // namespace
}  // namespace gangplank::op
