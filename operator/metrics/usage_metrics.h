// The operator's metrics of GPU use (issue 20), beside OperatorMetrics on the same registry:
//   gangplank_operator_gpu_seconds_total{pool,queue,namespace}       GPU-seconds held by admitted gangs
//   gangplank_operator_busy_gpu_seconds_total{pool,queue,namespace}  the same weighted by measured
//                                                                    utilization (while it is known)
//   gangplank_operator_idle_gangs{pool,queue,policy}                 gangs idle past their limit now
//   gangplank_operator_idle_gang_actions_total{pool,queue,action}    report | preemptible | reclaim
//   gangplank_operator_utilization_up{pool}                          1 when the last read succeeded
//   gangplank_operator_utilization_query_failures_total{pool,reason}
//   gangplank_operator_queue_used_gpu_hours{pool,queue}              over the pool's usage window
//   gangplank_operator_queue_decayed_usage_gpus{pool,queue}          what time-based fair share counts
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <string>

namespace gangplank::op {

class UsageMetrics {
 public:
  explicit UsageMetrics(prometheus::Registry& registry);

  void Held(const std::string& pool, const std::string& queue, const std::string& namespace_, double gpu_seconds,
            double busy_gpu_seconds);
  // Busy GPU-seconds unknown (no utilization read): only the allocated counter moves.
  void HeldUnmeasured(const std::string& pool, const std::string& queue, const std::string& namespace_,
                      double gpu_seconds);
  void IdleGangs(const std::string& pool, const std::string& queue, const std::string& policy, int gangs);
  void IdleAction(const std::string& pool, const std::string& queue, const std::string& action);
  void UtilizationRead(const std::string& pool, bool ok, const std::string& failure_reason);
  void QueueUsage(const std::string& pool, const std::string& queue, double used_gpu_hours, double decayed_gpus);

 private:
  prometheus::Family<prometheus::Counter>& gpu_seconds_;
  prometheus::Family<prometheus::Counter>& busy_seconds_;
  prometheus::Family<prometheus::Gauge>& idle_gangs_;
  prometheus::Family<prometheus::Counter>& idle_actions_;
  prometheus::Family<prometheus::Gauge>& utilization_up_;
  prometheus::Family<prometheus::Counter>& query_failures_;
  prometheus::Family<prometheus::Gauge>& used_hours_;
  prometheus::Family<prometheus::Gauge>& decayed_;
};

}  // namespace gangplank::op
