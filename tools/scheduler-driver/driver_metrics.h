// The driver's Prometheus metrics (prometheus-cpp core), served on /metrics by the binary and readable
// as plain counters by tests that run the driver in-process.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gangplank::scheduler_driver {

struct DriverCounters {
  std::uint64_t bound = 0;              // pods this driver bound
  std::uint64_t binding_conflicts = 0;  // 409 "already assigned" answers to a binding
  std::uint64_t filter_failures = 0;    // attempts in which no node passed the filters (in-tree + extender)
  std::uint64_t extender_errors = 0;    // failed extender calls (any verb)
  std::uint64_t attempts = 0;           // scheduling attempts
};

class DriverMetrics {
 public:
  DriverMetrics();

  // result: scheduled, unschedulable, error
  void CountAttempt(std::string_view result);
  void CountBound();
  void CountBindingConflict();
  void CountFilterFailure();
  void CountExtenderError(std::string_view verb);
  void SetQueue(std::size_t waiting, std::size_t assumed);

  DriverCounters Counters() const;
  std::string Scrape() const;  // Prometheus text exposition

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Family<prometheus::Counter>& extender_errors_;
  prometheus::Counter& bound_;
  prometheus::Counter& conflicts_;
  prometheus::Counter& filter_failures_;
  prometheus::Gauge& waiting_;
  prometheus::Gauge& assumed_;
};

}  // namespace gangplank::scheduler_driver
