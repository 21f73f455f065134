// Carries out each queue's idle policy (spec.idlePolicy of the pool, overridden by the Queue) on one
// pool's running gangs, in each reconcile before the admission round. Every read of utilization adds
// one sample per gang (the mean over its running members; none when any member has no series or the
// read failed); the engine judges (engine/idle/idle_verdict.h), and here:
//   - Report: the gang's lead pod gets gangplank.io/GPUsIdle=True (IdleGPUs, with the figures), its
//     owner a GangIdle Event once per idle spell, and gangplank_operator_idle_gangs counts it; the
//     condition turns False (GPUsBusy) when the gang works again;
//   - Preemptible: reported, and the round takes it first as a victim of reclaim and preemption
//     (engine::RunningGang::idle_preemptible), whatever its queue's share;
//   - Reclaim: reported, asked to checkpoint (the pool's faultRecovery.checkpointGraceSeconds; 0: not
//     asked), then evicted whole on the acknowledgement or at the deadline, and recorded as failed in
//     the pool's restart records, so its pods are not admitted again (reason IdleReclaimed) until its
//     owner is deleted.
// Missing data never makes a gang idle: a dead Prometheus stops every action, it does not start one.
#pragma once

#include <functional>
#include <limits>
#include <string>

#include "engine/idle/idle_policy.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/metrics/usage_metrics.h"
#include "operator/model/pool_model.h"
#include "operator/model/queue_tree.h"
#include "operator/status/gang_conditions.h"
#include "operator/utilization/pod_utilization.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

// The restart-record cause of a gang reclaimed for idle GPUs.
inline constexpr const char* kIdleReclaimCause = "IdleReclaimed";

struct IdleOutcome {
  int idle = 0;       // Gangs idle past their limit now (when judged in this call).
  int reclaimed = 0;  // Gangs evicted for it in this call.
  double next_wakeup = std::numeric_limits<double>::infinity();
};

// Whether the pool or any queue has an idle policy other than Off (else nothing is read or judged).
bool AnyIdlePolicy(const cache::PoolConfig& pool, const QueueTree& tree);
// The idle policy of a queue's gangs in a pool, as the engine takes it.
engine::IdlePolicy IdlePolicyOf(const cache::PoolConfig& pool, const QueueTree& tree, const std::string& queue);

class IdleGangs {
 public:
  // `max_gap_seconds`: the longest stretch without a sample that still counts as covered (a few poll
  // intervals). `assume` gets each pod as written.
  IdleGangs(const GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions, UsageMetrics* metrics,
            std::function<void(PoolModel&, const cache::PodInfo&)> assume, double max_gap_seconds);

  IdleOutcome Run(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree, double now);

 private:
  IdleOutcome Judge(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree, double now);
  void Remark(PoolModel& model);
  void Sample(PoolModel& model, const PodUtilizationSnapshot* snapshot, const QueueTree& tree);
  void Said(PoolModel& model, const Gang& gang, const std::string& queue, const engine::IdlePolicy& policy,
            const std::string& reason, double now);
  void Unsaid(PoolModel& model, const Gang& gang);
  void Reclaim(PoolModel& model, const Gang& gang, const std::string& queue, const std::string& why, double now,
               IdleOutcome& outcome);
  void Count(PoolModel& model, const std::map<std::pair<std::string, std::string>, int>& counts);

  const GangTracker& tracker_;
  ClusterWriter& writer_;
  GangConditions& conditions_;
  UsageMetrics* metrics_;
  std::function<void(PoolModel&, const cache::PodInfo&)> assume_;
  double max_gap_seconds_;
};

}  // namespace gangplank::op
