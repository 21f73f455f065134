#include "extender/service/expired_assumptions.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace gangplank::extender {
namespace {

// The default logger, pointed at a string for the test's lifetime and restored after.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("captured", std::make_shared<spdlog::sinks::ostream_sink_st>(text_));
    logger->set_pattern("%l %v");
    spdlog::set_default_logger(std::move(logger));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

std::string Scrape(ExtenderMetrics& metrics) {
  cache::ClusterState state;
  return state.Read([&](const cache::StateView& v) { return metrics.Scrape(v, true); });
}

TEST(ReportExpiredAssumptions, LogsEachPodAndCountsThem) {
  ExtenderMetrics metrics;
  CapturedLog log;
  ReportExpiredAssumptions({{"uid-1", "ml/a", "n1", true}, {"uid-2", "ml/b", "n2", false}}, metrics);
  ReportExpiredAssumptions({{"uid-3", "ml/c", "n1", true}}, metrics);
  EXPECT_NE(Scrape(metrics).find("gangplank_extender_assumed_bindings_expired_total 3"), std::string::npos);
  const std::string text = log.text();
  EXPECT_NE(text.find(R"(warning "msg":"assumed binding expired: the pod informer never confirmed it","pod":"ml/a",)"
                      R"("uid":"uid-1","node":"n1","forgotten":"false")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("pod":"ml/b","uid":"uid-2","node":"n2","forgotten":"true")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("pod":"ml/c")"), std::string::npos) << text;
}

TEST(ReportExpiredAssumptions, NothingExpiredLogsNothingAndCountsZero) {
  ExtenderMetrics metrics;
  CapturedLog log;
  ReportExpiredAssumptions({}, metrics);
  EXPECT_NE(Scrape(metrics).find("gangplank_extender_assumed_bindings_expired_total 0"), std::string::npos);
  EXPECT_EQ(log.text(), "");
}

}  // namespace
}  // namespace gangplank::extender
