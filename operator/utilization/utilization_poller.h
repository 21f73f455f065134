// Reads every GPU pool's pod utilization from Prometheus at a steady interval, on its own thread, so a
// slow or dead Prometheus never holds up a reconcile. Each pool reads from its spec.utilization (or the
// operator's --prometheus-url and --utilization-query); one read serves every pool with the same URL and
// query. After each pass it calls `on_read`, which enqueues the pools, so their reconciles judge idle
// gangs and count GPU-seconds at the poller's pace.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/crd/pool_config.h"
#include "operator/metrics/usage_metrics.h"
#include "operator/utilization/pod_utilization.h"

namespace gangplank::op {

struct UtilizationPollerOptions {
  std::string prometheus_url;  // For pools that name none; empty: those pools' utilization is not read.
  std::string query;           // For pools that name none.
  double interval_seconds = 30;
};

// dcgm-exporter's per-pod GPU utilization (percent), averaged over each pod's GPUs.
inline constexpr const char* kDefaultUtilizationQuery = "avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL)";

class UtilizationPoller {
 public:
  UtilizationPoller(UtilizationSource& source, UsageMetrics* metrics, UtilizationPollerOptions options,
                    std::function<std::vector<cache::PoolConfig>()> pools, std::function<void()> on_read);
  ~UtilizationPoller();
  UtilizationPoller(const UtilizationPoller&) = delete;
  UtilizationPoller& operator=(const UtilizationPoller&) = delete;

  void Start();
  void Stop();
  // One pass, on the caller's thread (tests, and the thread's loop).
  void PollOnce(double now);
  std::shared_ptr<const UtilizationSnapshots> Latest() const;

 private:
  void Loop();

  UtilizationSource& source_;
  UsageMetrics* metrics_;
  UtilizationPollerOptions options_;
  std::function<std::vector<cache::PoolConfig>()> pools_;
  std::function<void()> on_read_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::shared_ptr<const UtilizationSnapshots> latest_ = std::make_shared<UtilizationSnapshots>();
  std::thread thread_;
};

}  // namespace gangplank::op
