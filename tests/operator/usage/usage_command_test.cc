// `gangplank-operator usage` end to end: a real Prometheus scrapes counters shaped as the operator exports
// them (GPU-seconds allocated and busy per pool, queue and namespace, growing with time), and the command
// prints GPU-hours per queue and namespace as a table or CSV; a dead Prometheus or a bad span is an error
// that says what is wrong.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "net/http_server.h"
#include "tests/support/subprocess.h"
#include "tests/support/prometheus_fixture.h"

namespace gangplank::op {
namespace {

using gangplank::testing::ProcessResult;
using gangplank::testing::run_process;

// Serves /metrics as the operator would after `elapsed` seconds: research (ml) holds 16 GPUs at 25%
// busy, prod (serving) 8 GPUs never measured.
class FakeOperatorMetrics {
 public:
  FakeOperatorMetrics() {
    server_->Start(net::MakeSyncHandler([this](const net::HttpRequest&) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      char text[1024];
      std::snprintf(text, sizeof text,
                    "# TYPE gangplank_operator_gpu_seconds_total counter\n"
                    "gangplank_operator_gpu_seconds_total{pool=\"h100\",queue=\"research\",namespace=\"ml\"} %.3f\n"
                    "gangplank_operator_gpu_seconds_total{pool=\"h100\",queue=\"prod\",namespace=\"serving\"} %.3f\n"
                    "# TYPE gangplank_operator_busy_gpu_seconds_total counter\n"
                    "gangplank_operator_busy_gpu_seconds_total{pool=\"h100\",queue=\"research\",namespace=\"ml\"} %.3f\n",
                    16 * s, 8 * s, 4 * s);
      return net::HttpResponse::text(200, text);
    }));
  }
  std::string Target() const {
    const std::string url = server_->BaseUrl();
    return url.substr(url.find("//") + 2);
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::unique_ptr<net::HttpServer> server_ = net::MakeHttpServer({});
};

class UsageCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    GANGPLANK_REQUIRE_PROMETHEUS();
    prometheus_ = std::make_unique<gangplank::testing::PrometheusFixture>(
        gangplank::testing::PrometheusFixtureOptions{.targets = {metrics_.Target()}, .job = "gangplank"});
    // increase() needs two scrapes of a series.
    ASSERT_TRUE(prometheus_->WaitForSeries("count_over_time(gangplank_operator_gpu_seconds_total[1m]) >= 3", 2))
        << prometheus_->Log();
  }
  ProcessResult Usage(std::vector<std::string> args) {
    args.insert(args.begin(), {GANGPLANK_OPERATOR_BINARY, "usage"});
    return run_process(args, "", std::chrono::seconds(30));
  }
  std::string Url() const { return prometheus_->BaseUrl(); }

  FakeOperatorMetrics metrics_;
  std::unique_ptr<gangplank::testing::PrometheusFixture> prometheus_;
};

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

TEST_F(UsageCommand, PrintsGpuHoursAllocatedAndBusyPerQueueAndNamespaceAsCsv) {
  const ProcessResult r = Usage({"--prometheus-url", Url(), "--since", "1m", "--csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "queue,namespace,allocated_gpu_hours,busy_gpu_hours");
  std::getline(lines, line);
  std::vector<std::string> prod = Fields(line);
  ASSERT_EQ(prod.size(), 4u) << r.out;
  EXPECT_EQ(prod[0], "prod");
  EXPECT_EQ(prod[1], "serving");
  EXPECT_GT(std::stod(prod[2]), 0);
  EXPECT_EQ(prod[3], "") << "never measured is not zero busy";
  std::getline(lines, line);
  std::vector<std::string> research = Fields(line);
  ASSERT_EQ(research.size(), 4u) << r.out;
  EXPECT_EQ(research[0], "research");
  EXPECT_EQ(research[1], "ml");
  const double allocated = std::stod(research[2]);
  EXPECT_GT(allocated, 0);
  EXPECT_NEAR(std::stod(research[3]) / allocated, 0.25, 0.05);
  EXPECT_NEAR(allocated / std::stod(prod[2]), 2.0, 0.2);
}

TEST_F(UsageCommand, PrintsATableWithTotalsAndFiltersByPool) {
  const ProcessResult table = Usage({"--prometheus-url", Url(), "--since", "5m"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("GPU-hours over the last 5m"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("QUEUE"), std::string::npos);
  EXPECT_NE(table.out.find("research"), std::string::npos);
  EXPECT_NE(table.out.find("25%"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("TOTAL"), std::string::npos);
  const ProcessResult other = Usage({"--prometheus-url", Url(), "--since", "5m", "--pool", "a100", "--csv"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(other.out, "queue,namespace,allocated_gpu_hours,busy_gpu_hours\n");
}

TEST_F(UsageCommand, ABadSpanOrADeadPrometheusIsAnErrorSayingSo) {
  const ProcessResult span = Usage({"--prometheus-url", Url(), "--since", "7days"});
  EXPECT_EQ(span.exit_code, 2);
  EXPECT_NE(span.err.find("--since 7days"), std::string::npos) << span.err;
  const std::string url = Url();
  prometheus_.reset();  // Stopped: nothing listens there now.
  const ProcessResult dead = Usage({"--prometheus-url", url, "--since", "1h"});
  EXPECT_EQ(dead.exit_code, 1);
  EXPECT_NE(dead.err.find("Prometheus could not answer"), std::string::npos) << dead.err;
  const ProcessResult missing = Usage({"--since", "1h"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("prometheus-url"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace gangplank::op
