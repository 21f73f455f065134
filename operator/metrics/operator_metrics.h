// The operator's Prometheus metrics (prometheus-cpp core), served as text on /metrics:
//   gangplank_operator_admissions_total{pool,queue}              gangs admitted
//   gangplank_operator_evictions_total{pool,kind,outcome}        gangs evicted by reclaim, priority
//                                                                preemption or start timeout (kind),
//                                                                outcome evicted|blocked|partial
//   gangplank_operator_admission_conflicts_total{pool}           admissions rolled back (a pod changed)
//   gangplank_operator_pending_gangs{pool,queue}                 gangs waiting
//   gangplank_operator_gang_wait_seconds{pool,queue}             wait from arrival to admission (histogram)
//   gangplank_operator_oldest_pending_seconds{pool,queue}        how long the oldest waiting gang waits
//   gangplank_operator_queue_fair_share_gpus / _used_gpus{pool,queue}
//   gangplank_operator_reconcile_duration_seconds{scope}         one round: full or incremental (histogram)
//   gangplank_operator_pool_gpus{pool,state}                     capacity, allocated, free
//   gangplank_operator_pool_fragmentation_ratio{pool}            free GPU capacity typical pods cannot use
//   gangplank_operator_largest_gang_gpus{pool,level}
//   gangplank_operator_leader                                    1 while this replica leads
//   gangplank_operator_webhook_requests_total{outcome}
//   gangplank_operator_gang_restarts_total{pool,cause}           gangs restarted whole after a fault
//   gangplank_operator_gang_failures_total{pool,cause}           gangs failed for good by fault recovery
//   gangplank_operator_fault_lost_gpu_hours_total{pool}          work lost by restarted gangs
//   gangplank_operator_fault_checkpoint_requests_total{pool}     faulty gangs asked to checkpoint first
//   gangplank_operator_fault_recovery_seconds{pool}              from a fault to its gang running again
// and the GPU-use metrics of usage_metrics.h.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <mutex>
#include <string>

#include "operator/metrics/usage_metrics.h"

namespace gangplank::op {

class OperatorMetrics {
 public:
  OperatorMetrics();

  void Admitted(const std::string& pool, const std::string& queue, double waited_seconds);
  void Evicted(const std::string& pool, const std::string& kind, const std::string& outcome);
  void AdmissionConflict(const std::string& pool);
  void QueueFigures(const std::string& pool, const std::string& queue, int pending, double oldest_seconds,
                    double fair_share, double used);
  void Reconciled(bool full, double seconds);
  void PoolGpus(const std::string& pool, double capacity, double allocated, double fragmentation);
  void LargestGang(const std::string& pool, const std::string& level, int gpus);
  void Leader(bool leading);
  void Webhook(const std::string& outcome);
  // Spot reclaim: a termination notice first seen (by source), a gang asked to checkpoint, a gang
  // evicted off a doomed node (checkpoint: in_time, late or none) with the work it lost and the time
  // from the notice to its requeue, and the nodes of a pool under notice now.
  void SpotNotice(const std::string& source);
  void SpotCheckpointRequested(const std::string& pool);
  void SpotReclaimed(const std::string& pool, const std::string& checkpoint, double lost_gpu_hours,
                     double notice_to_requeue_seconds);
  void NodesUnderNotice(const std::string& pool, int nodes);
  // Fault recovery: a gang restarted whole (by cause, with the work it lost), failed for good, asked to
  // checkpoint first, and running again (seconds from the fault).
  void GangRestarted(const std::string& pool, const std::string& cause, double lost_gpu_hours);
  void GangFailed(const std::string& pool, const std::string& cause);
  void FaultCheckpointRequested(const std::string& pool);
  void GangRecovered(const std::string& pool, double fault_to_running_seconds);
  // Runtime prediction: a gang's run ended and was learnt (its seconds), a gang started on reserved
  // nodes on its predicted runtime. Overstaying ones are evictions of kind BackfillOverrun.
  void RuntimeLearnt(const std::string& pool, double seconds);
  void PredictedBackfill(const std::string& pool);

  // GPU use: GPU-seconds, idle gangs, utilization reads, queue usage (usage_metrics.h).
  UsageMetrics& usage() { return usage_; }

  std::string Scrape() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& admissions_;
  prometheus::Family<prometheus::Counter>& evictions_;
  prometheus::Family<prometheus::Counter>& conflicts_;
  prometheus::Family<prometheus::Gauge>& pending_;
  prometheus::Family<prometheus::Histogram>& wait_;
  prometheus::Family<prometheus::Gauge>& oldest_;
  prometheus::Family<prometheus::Gauge>& fair_share_;
  prometheus::Family<prometheus::Gauge>& used_;
  prometheus::Family<prometheus::Histogram>& reconcile_;
  prometheus::Family<prometheus::Gauge>& pool_gpus_;
  prometheus::Family<prometheus::Gauge>& fragmentation_;
  prometheus::Family<prometheus::Gauge>& largest_;
  prometheus::Family<prometheus::Gauge>& leader_;
  prometheus::Family<prometheus::Counter>& webhook_;
  prometheus::Family<prometheus::Counter>& spot_notices_;
  prometheus::Family<prometheus::Counter>& spot_checkpoints_;
  prometheus::Family<prometheus::Counter>& spot_reclaims_;
  prometheus::Family<prometheus::Counter>& spot_lost_;
  prometheus::Family<prometheus::Histogram>& spot_requeue_;
  prometheus::Family<prometheus::Gauge>& under_notice_;
  prometheus::Family<prometheus::Counter>& restarts_;
  prometheus::Family<prometheus::Counter>& failures_;
  prometheus::Family<prometheus::Counter>& fault_lost_;
  prometheus::Family<prometheus::Counter>& fault_checkpoints_;
  prometheus::Family<prometheus::Histogram>& recovery_;
  prometheus::Family<prometheus::Histogram>& runtimes_;
  prometheus::Family<prometheus::Counter>& predicted_backfills_;
  UsageMetrics usage_;
};

}  // namespace gangplank::op
