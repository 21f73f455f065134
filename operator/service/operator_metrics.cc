#include "operator/service/operator_metrics.h"

#include <prometheus/text_serializer.h>

namespace gangplank::op {
namespace {

prometheus::Histogram::BucketBoundaries WaitBuckets() {
  return {1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400};
}

prometheus::Histogram::BucketBoundaries ReconcileBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
}

}  // namespace

OperatorMetrics::OperatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      admissions_(prometheus::BuildCounter().Name("gangplank_operator_admissions_total").Help("Gangs admitted, by pool and queue").Register(*registry_)),
      evictions_(prometheus::BuildCounter()
                     .Name("gangplank_operator_evictions_total")
                     .Help("Whole-gang evictions by pool, kind (Reclaim, PriorityPreemption, StartTimeout) and outcome")
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
                   .Register(*registry_)) {
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

}  // namespace gangplank::op
