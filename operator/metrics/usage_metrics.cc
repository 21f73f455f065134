#include "operator/metrics/usage_metrics.h"

namespace gangplank::op {

UsageMetrics::UsageMetrics(prometheus::Registry& r)
    : gpu_seconds_(prometheus::BuildCounter()
                       .Name("gangplank_operator_gpu_seconds_total")
                       .Help("GPU-seconds held by admitted gangs")
                       .Register(r)),
      busy_seconds_(prometheus::BuildCounter()
                       .Name("gangplank_operator_busy_gpu_seconds_total")
                       .Help("GPU-seconds held by admitted gangs, weighted by their measured GPU utilization")
                       .Register(r)),
      idle_gangs_(prometheus::BuildGauge()
                       .Name("gangplank_operator_idle_gangs")
                       .Help("Gangs whose GPUs are idle past their queue's limit")
                       .Register(r)),
      idle_actions_(prometheus::BuildCounter()
                       .Name("gangplank_operator_idle_gang_actions_total")
                       .Help("Idle gangs reported, made preemptible or reclaimed")
                       .Register(r)),
      utilization_up_(prometheus::BuildGauge()
                       .Name("gangplank_operator_utilization_up")
                       .Help("1 when the last read of the pool's GPU utilization from Prometheus succeeded")
                       .Register(r)),
      query_failures_(prometheus::BuildCounter()
                       .Name("gangplank_operator_utilization_query_failures_total")
                       .Help("Failed reads of GPU utilization from Prometheus, by reason")
                       .Register(r)),
      used_hours_(prometheus::BuildGauge()
                       .Name("gangplank_operator_queue_used_gpu_hours")
                       .Help("GPU-hours a queue held in a pool over the pool's usage window")
                       .Register(r)),
      decayed_(prometheus::BuildGauge()
                       .Name("gangplank_operator_queue_decayed_usage_gpus")
                       .Help("GPUs a queue held in the past, decayed with the pool's usage half-life")
                       .Register(r)) {}

void UsageMetrics::Held(const std::string& pool, const std::string& queue, const std::string& namespace_,
                        double gpu_seconds, double busy_gpu_seconds) {
  HeldUnmeasured(pool, queue, namespace_, gpu_seconds);
  busy_seconds_.Add({{"pool", pool}, {"queue", queue}, {"namespace", namespace_}}).Increment(busy_gpu_seconds);
}

void UsageMetrics::HeldUnmeasured(const std::string& pool, const std::string& queue, const std::string& namespace_,
                                  double gpu_seconds) {
  gpu_seconds_.Add({{"pool", pool}, {"queue", queue}, {"namespace", namespace_}}).Increment(gpu_seconds);
}

void UsageMetrics::IdleGangs(const std::string& pool, const std::string& queue, const std::string& policy, int gangs) {
  idle_gangs_.Add({{"pool", pool}, {"queue", queue}, {"policy", policy}}).Set(gangs);
}

void UsageMetrics::IdleAction(const std::string& pool, const std::string& queue, const std::string& action) {
  idle_actions_.Add({{"pool", pool}, {"queue", queue}, {"action", action}}).Increment();
}

void UsageMetrics::UtilizationRead(const std::string& pool, bool ok, const std::string& failure_reason) {
  utilization_up_.Add({{"pool", pool}}).Set(ok ? 1 : 0);
  if (!ok) query_failures_.Add({{"pool", pool}, {"reason", failure_reason}}).Increment();
}

void UsageMetrics::QueueUsage(const std::string& pool, const std::string& queue, double used_gpu_hours,
                              double decayed_gpus) {
  used_hours_.Add({{"pool", pool}, {"queue", queue}}).Set(used_gpu_hours);
  decayed_.Add({{"pool", pool}, {"queue", queue}}).Set(decayed_gpus);
}

}  // namespace gangplank::op
