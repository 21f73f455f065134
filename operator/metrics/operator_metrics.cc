#include "operator/metrics/operator_metrics.h"

#include <prometheus/text_serializer.h>

namespace gangplank::op {
namespace {

prometheus::Histogram::BucketBoundaries WaitBuckets() {
  return {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400};
}

// Notices give 30 s (GKE, Azure) to 2 min (AWS); an admin's terminate-at may give more.
prometheus::Histogram::BucketBoundaries RequeueBuckets() { return {5, 10, 15, 30, 45, 60, 90, 120, 180, 300, 600}; }

prometheus::Histogram::BucketBoundaries ReconcileBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
}

}  // namespace

OperatorMetrics::OperatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      admissions_(prometheus::BuildCounter().Name("gangplank_operator_admissions_total").Help("Gangs admitted, by pool and queue").Register(*registry_)),
      evictions_(prometheus::BuildCounter()
                     .Name("gangplank_operator_evictions_total")
                     .Help("Whole-gang evictions by pool, kind (Reclaim, PriorityPreemption, StartTimeout, BackfillOverrun, Consolidation) and outcome")
                     .Register(*registry_)),
      conflicts_(prometheus::BuildCounter()
                     .Name("gangplank_operator_admission_conflicts_total")
                     .Help("Admissions rolled back because a member changed while the plan was written")
                     .Register(*registry_)),
      pending_(prometheus::BuildGauge().Name("gangplank_operator_pending_gangs").Help("Gangs waiting for admission").Register(*registry_)),
      wait_(prometheus::BuildHistogram()
                .Name("gangplank_operator_gang_wait_seconds")
                .Help("Time from a gang's arrival to its admission")
                .Register(*registry_)),
      oldest_(prometheus::BuildGauge()
                  .Name("gangplank_operator_oldest_pending_seconds")
                  .Help("How long the oldest waiting gang of a queue has waited")
                  .Register(*registry_)),
      fair_share_(prometheus::BuildGauge().Name("gangplank_operator_queue_fair_share_gpus").Help("Fair share of a queue in a pool").Register(*registry_)),
      used_(prometheus::BuildGauge().Name("gangplank_operator_queue_used_gpus").Help("GPUs held by a queue's gangs in a pool").Register(*registry_)),
      reconcile_(prometheus::BuildHistogram()
                     .Name("gangplank_operator_reconcile_duration_seconds")
                     .Help("One admission round of a pool, by scope (full or incremental)")
                     .Register(*registry_)),
      pool_gpus_(prometheus::BuildGauge().Name("gangplank_operator_pool_gpus").Help("GPUs of a pool by state").Register(*registry_)),
      fragmentation_(prometheus::BuildGauge()
                         .Name("gangplank_operator_pool_fragmentation_ratio")
                         .Help("Share of a pool's free GPU capacity its typical pods cannot use")
                         .Register(*registry_)),
      largest_(prometheus::BuildGauge()
                   .Name("gangplank_operator_largest_gang_gpus")
                   .Help("GPUs of the largest whole-GPU gang placeable now in one domain of a level")
                   .Register(*registry_)),
      leader_(prometheus::BuildGauge().Name("gangplank_operator_leader").Help("1 while this replica is the leader").Register(*registry_)),
      webhook_(prometheus::BuildCounter()
                   .Name("gangplank_operator_webhook_requests_total")
                   .Help("Admission webhook reviews by outcome (gated, already_gated, skipped, bad_request)")
                   .Register(*registry_)),
      spot_notices_(prometheus::BuildCounter()
                        .Name("gangplank_operator_spot_notices_total")
                        .Help("Node termination notices first seen, by source (aws-node-termination-handler, karpenter, gke, aks, annotation)")
                        .Register(*registry_)),
      spot_checkpoints_(prometheus::BuildCounter()
                            .Name("gangplank_operator_spot_checkpoint_requests_total")
                            .Help("Gangs asked to checkpoint because a member's node is under notice")
                            .Register(*registry_)),
      spot_reclaims_(prometheus::BuildCounter()
                         .Name("gangplank_operator_spot_reclaims_total")
                         .Help("Gangs evicted off nodes under notice, by checkpoint (in_time, late, none)")
                         .Register(*registry_)),
      spot_lost_(prometheus::BuildCounter()
                     .Name("gangplank_operator_spot_lost_gpu_hours_total")
                     .Help("GPU-hours of work lost by gangs evicted off nodes under notice")
                     .Register(*registry_)),
      spot_requeue_(prometheus::BuildHistogram()
                        .Name("gangplank_operator_spot_notice_to_requeue_seconds")
                        .Help("Time from a termination notice to the affected gang's eviction and requeue")
                        .Register(*registry_)),
      under_notice_(prometheus::BuildGauge()
                        .Name("gangplank_operator_pool_nodes_under_notice")
                        .Help("Nodes of a pool under a termination notice")
                        .Register(*registry_)),
      restarts_(prometheus::BuildCounter()
                    .Name("gangplank_operator_gang_restarts_total")
                    .Help("Gangs restarted whole after a member or node fault, by cause")
                    .Register(*registry_)),
      failures_(prometheus::BuildCounter()
                    .Name("gangplank_operator_gang_failures_total")
                    .Help("Gangs failed for good by fault recovery (policy FailGang or past the restart limit), by cause")
                    .Register(*registry_)),
      fault_lost_(prometheus::BuildCounter()
                      .Name("gangplank_operator_fault_lost_gpu_hours_total")
                      .Help("GPU-hours of work lost by gangs restarted after a fault")
                      .Register(*registry_)),
      fault_checkpoints_(prometheus::BuildCounter()
                             .Name("gangplank_operator_fault_checkpoint_requests_total")
                             .Help("Faulty gangs on live nodes asked to checkpoint before their restart")
                             .Register(*registry_)),
      recovery_(prometheus::BuildHistogram()
                    .Name("gangplank_operator_fault_recovery_seconds")
                    .Help("Time from a fault to its gang running again after the restart")
                    .Register(*registry_)),
      runtimes_(prometheus::BuildHistogram()
                    .Name("gangplank_operator_gang_runtime_seconds")
                    .Help("How long gangs ran, as runtime prediction learnt it when their run ended")
                    .Register(*registry_)),
      predicted_backfills_(prometheus::BuildCounter()
                               .Name("gangplank_operator_predicted_backfills_total")
                               .Help("Gangs started on nodes reserved for another on their predicted runtime")
                               .Register(*registry_)),
      usage_(*registry_) {
  leader_.Add({}).Set(0);
}

void OperatorMetrics::Admitted(const std::string& pool, const std::string& queue, double waited_seconds) {
  admissions_.Add({{"pool", pool}, {"queue", queue}}).Increment();
  wait_.Add({{"pool", pool}, {"queue", queue}}, WaitBuckets()).Observe(waited_seconds);
}

void OperatorMetrics::Evicted(const std::string& pool, const std::string& kind, const std::string& outcome) {
  evictions_.Add({{"pool", pool}, {"kind", kind}, {"outcome", outcome}}).Increment();
}

void OperatorMetrics::AdmissionConflict(const std::string& pool) { conflicts_.Add({{"pool", pool}}).Increment(); }

void OperatorMetrics::QueueFigures(const std::string& pool, const std::string& queue, int pending, double oldest_seconds,
                                   double fair_share, double used) {
  const prometheus::Labels labels{{"pool", pool}, {"queue", queue}};
  pending_.Add(labels).Set(pending);
  oldest_.Add(labels).Set(oldest_seconds);
  fair_share_.Add(labels).Set(fair_share);
  used_.Add(labels).Set(used);
}

void OperatorMetrics::Reconciled(bool full, double seconds) {
  reconcile_.Add({{"scope", full ? "full" : "incremental"}}, ReconcileBuckets()).Observe(seconds);
}

void OperatorMetrics::PoolGpus(const std::string& pool, double capacity, double allocated, double fragmentation) {
  pool_gpus_.Add({{"pool", pool}, {"state", "capacity"}}).Set(capacity);
  pool_gpus_.Add({{"pool", pool}, {"state", "allocated"}}).Set(allocated);
  pool_gpus_.Add({{"pool", pool}, {"state", "free"}}).Set(capacity - allocated);
  fragmentation_.Add({{"pool", pool}}).Set(fragmentation);
}

void OperatorMetrics::LargestGang(const std::string& pool, const std::string& level, int gpus) {
  largest_.Add({{"pool", pool}, {"level", level}}).Set(gpus);
}

void OperatorMetrics::Leader(bool leading) { leader_.Add({}).Set(leading ? 1 : 0); }

void OperatorMetrics::Webhook(const std::string& outcome) { webhook_.Add({{"outcome", outcome}}).Increment(); }

std::string OperatorMetrics::Scrape() const { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

void OperatorMetrics::SpotNotice(const std::string& source) { spot_notices_.Add({{"source", source}}).Increment(); }

void OperatorMetrics::SpotCheckpointRequested(const std::string& pool) { spot_checkpoints_.Add({{"pool", pool}}).Increment(); }

void OperatorMetrics::SpotReclaimed(const std::string& pool, const std::string& checkpoint, double lost_gpu_hours,
                                   double notice_to_requeue_seconds) {
  spot_reclaims_.Add({{"pool", pool}, {"checkpoint", checkpoint}}).Increment();
  spot_lost_.Add({{"pool", pool}}).Increment(lost_gpu_hours);
  spot_requeue_.Add({{"pool", pool}}, RequeueBuckets()).Observe(notice_to_requeue_seconds);
}

void OperatorMetrics::NodesUnderNotice(const std::string& pool, int nodes) { under_notice_.Add({{"pool", pool}}).Set(nodes); }

void OperatorMetrics::GangRestarted(const std::string& pool, const std::string& cause, double lost_gpu_hours) {
  restarts_.Add({{"pool", pool}, {"cause", cause}}).Increment();
  fault_lost_.Add({{"pool", pool}}).Increment(lost_gpu_hours);
}

void OperatorMetrics::GangFailed(const std::string& pool, const std::string& cause) {
  failures_.Add({{"pool", pool}, {"cause", cause}}).Increment();
}

void OperatorMetrics::FaultCheckpointRequested(const std::string& pool) { fault_checkpoints_.Add({{"pool", pool}}).Increment(); }

void OperatorMetrics::GangRecovered(const std::string& pool, double fault_to_running_seconds) {
  recovery_.Add({{"pool", pool}}, RequeueBuckets()).Observe(fault_to_running_seconds);
}

void OperatorMetrics::RuntimeLearnt(const std::string& pool, double seconds) {
  static const prometheus::Histogram::BucketBoundaries kBuckets{60, 600, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400};
  runtimes_.Add({{"pool", pool}}, kBuckets).Observe(seconds);
}

void OperatorMetrics::PredictedBackfill(const std::string& pool) { predicted_backfills_.Add({{"pool", pool}}).Increment(); }

}  // namespace gangplank::op
