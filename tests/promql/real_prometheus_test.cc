// PrometheusClient against the real Prometheus scraping fake_dcgm_exporter: per-pod utilization as the
// operator will read it, a range query, Prometheus' own bad_data answer, and a target gone bad.
#include <gtest/gtest.h>

#include <filesystem>

#include "promql/pod_values.h"
#include "promql/prometheus_client.h"
#include "tests/support/dcgm_exporter/fake_exporter_process.h"
#include "tests/support/prometheus_fixture.h"

namespace gangplank::promql {
namespace {

using testing::FakeDcgmExporter;
using testing::PrometheusFixture;

const char kLoads[] = R"([{"namespace":"ml","pod":"train-0","gpus":2,"util":85},
                          {"namespace":"ml","pod":"train-1","gpus":1,"util":40},
                          {"namespace":"research","pod":"notebook","gpus":1,"util":5}])";

class RealPrometheus : public ::testing::Test {
 protected:
  void SetUp() override {
    GANGPLANK_REQUIRE_PROMETHEUS();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const auto log = std::filesystem::temp_directory_path() /
                     ("fake-dcgm-" + std::string(info->name()) + "-" + std::to_string(::getpid()) + ".log");
    exporter_ = std::make_unique<FakeDcgmExporter>(GANGPLANK_FAKE_DCGM_EXPORTER_BINARY, log.string());
    ASSERT_EQ(exporter_->SetLoads(kLoads), 200);
    prometheus_ =
        std::make_unique<PrometheusFixture>(testing::PrometheusFixtureOptions{.targets = {exporter_->Target()}});
    ASSERT_TRUE(prometheus_->WaitForSeries(R"(DCGM_FI_DEV_GPU_UTIL{pod="notebook"})")) << prometheus_->Log();
    client_ = std::make_unique<PrometheusClient>(PrometheusClientOptions{.base_url = prometheus_->BaseUrl()});
  }

  std::unique_ptr<FakeDcgmExporter> exporter_;
  std::unique_ptr<PrometheusFixture> prometheus_;
  std::unique_ptr<PrometheusClient> client_;
};

TEST_F(RealPrometheus, QueryGivesEachPodsUtilization) {
  const auto result = client_->Query("DCGM_FI_DEV_GPU_UTIL");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().size(), 8u);  // every GPU of the node, idle ones with pod=""
  const auto pods = ByPod(result.value());
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_DOUBLE_EQ(pods.at({"ml", "train-0"}), 85);
  EXPECT_DOUBLE_EQ(pods.at({"ml", "train-1"}), 40);
  EXPECT_DOUBLE_EQ(pods.at({"research", "notebook"}), 5);
  for (const auto& sample : result.value()) {
    EXPECT_EQ(sample.labels.at("job"), "dcgm");
    EXPECT_EQ(sample.labels.at("modelName"), "NVIDIA H100 80GB HBM3");
  }
}

TEST_F(RealPrometheus, AggregatedQueryKeepsTheNamespaceAndPodLabels) {
  const auto result = client_->Query(R"(sum by (namespace, pod) (DCGM_FI_PROF_GR_ENGINE_ACTIVE{pod!=""}))");
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_NEAR(ByPod(result.value()).at({"ml", "train-0"}), 1.7, 1e-9);  // two GPUs at 0.85
}

TEST_F(RealPrometheus, QueryRangeGivesAMatrix) {
  const auto now = Clock::now();
  const auto result = client_->QueryRange(R"(DCGM_FI_DEV_GPU_UTIL{pod="train-1"})", now - std::chrono::seconds(30), now,
                                          std::chrono::seconds(1));
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result.value().size(), 1u);
  ASSERT_FALSE(result.value()[0].points.empty());
  for (const auto& point : result.value()[0].points) EXPECT_DOUBLE_EQ(point.value, 40);
}

TEST_F(RealPrometheus, BadQueryIsBadData) {
  const auto result = client_->Query("sum by (pod (DCGM_FI_DEV_GPU_UTIL");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, QueryError::Kind::kHttpStatus);
  EXPECT_EQ(result.error().http_status, 400);
  EXPECT_EQ(result.error().error_type, "bad_data") << result.error().message;
}

TEST_F(RealPrometheus, ScalarResultIsTheWrongType) {
  const auto result = client_->Query("scalar(sum(DCGM_FI_DEV_GPU_UTIL))");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, QueryError::Kind::kWrongResultType);
}

TEST_F(RealPrometheus, GarbageScrapeLeavesNoSeriesRatherThanGarbage) {
  ASSERT_EQ(exporter_->SetMode("garbage"), 200);
  // A failed scrape marks the target's series stale: the query answers nothing, and up says why.
  ASSERT_TRUE(prometheus_->WaitForNoSeries("DCGM_FI_DEV_GPU_UTIL")) << prometheus_->Log();
  const auto up = client_->Query(R"(up{job="dcgm"})");
  ASSERT_TRUE(up.ok()) << up.error().message;
  ASSERT_EQ(up.value().size(), 1u);
  EXPECT_EQ(up.value()[0].value, 0);
  ASSERT_EQ(exporter_->SetMode("ok"), 200);
  EXPECT_TRUE(prometheus_->WaitForSeries("DCGM_FI_DEV_GPU_UTIL", 8));
}

TEST_F(RealPrometheus, ExporterErrorAlsoTakesTheTargetDown) {
  ASSERT_EQ(exporter_->SetMode("error"), 200);
  EXPECT_TRUE(prometheus_->WaitForNoSeries("DCGM_FI_DEV_GPU_UTIL")) << prometheus_->Log();
}

}  // namespace
}  // namespace gangplank::promql
