// One reconcile of one GPU pool: the operator's admission loop.
//
//   1. Bring the pool's admission book up to date for the gangs that changed (recovering any admission a
//      stopped leader left half-written), or for every gang when the cluster state was rebuilt.
//   2. Ask the engine for a round: a full one when something could have made waiting gangs placeable
//      (capacity freed, queues or shares changed, time-based thresholds passed, staleness), else an
//      incremental one that plans only the gangs that changed (engine::NeedsFullRound).
//   3. Carry the decision out: evict whole victim gangs (PodDisruptionBudgets checked for the whole
//      gang first), write each admitted gang's plan in two phases (admission_commit.h), keep the
//      reservations, and say on every waiting gang why it waits.
//   4. Report: the pool's status, queue figures for the Queue status, metrics.
// Before the round, gangs on nodes under a termination notice are asked to checkpoint or evicted whole
// (spot_reclaimer.h), and gangs hit by a fault are restarted or failed whole (faults/gang_restarter.h),
// so the round sees them leaving; a failed gang's pods wait with reason GangFailed. Then GPU-seconds are
// counted and idle gangs judged (utilization/), which may mark gangs preemptible or reclaim them.
// The reconciler holds no lock while it writes to the API server; a pod that changed under a plan makes
// the write fail and the gang is planned again. Every decision comes from the engine.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cache/crd/pool_config.h"
#include "cache/objects/queue_resolver.h"
#include "engine/random.h"
#include "operator/autoscaling/capacity_requests.h"
#include "operator/writer/cluster_writer.h"
#include "operator/gangs/gang_size_resolver.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/gangs/ungoverned_pods.h"
#include "operator/model/pool_model.h"
#include "operator/model/queue_tree.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/faults/gang_restarter.h"
#include "operator/faults/member_faults.h"
#include "operator/faults/node_faults.h"
#include "operator/spot/node_notices.h"
#include "operator/spot/spot_reclaimer.h"
#include "operator/status/gang_conditions.h"
#include "operator/utilization/idle_gangs.h"
#include "operator/utilization/pod_utilization.h"
#include "operator/utilization/usage_accounting.h"

namespace gangplank::op {

struct RoundResult;

// What the whole cluster looks like to one reconcile (a snapshot the controller hands over).
struct ReconcileContext {
  std::shared_ptr<const QueueTree> tree;
  std::vector<cache::PoolConfig> pools;  // Every pool, for routing waiting gangs.
  std::function<std::string(const std::string&)> namespace_queue;
  cache::QueueResolver queues;           // Which queue a gang is charged to (the default queue with it).
  double now = 0;                        // Seconds since the epoch.
  std::shared_ptr<const NoticeSnapshot> notices;  // Nodes under a termination notice (null: none).
  std::shared_ptr<const NodeFaultSnapshot> node_faults;  // Nodes with a fault signal (null: none).
  // A GPUPool object as the informer holds it (JSON text, "" when absent): its status's gangRestarts seed
  // a pool model's restart records once.
  std::function<std::string(const std::string& pool)> pool_object;
  // The latest read of each pool's GPU utilization (null or absent: not read).
  std::shared_ptr<const UtilizationSnapshots> utilization;
  // GPU pods gangplank does not govern, charged to their namespace's queue (null: none are charged).
  const UngovernedPods* ungoverned = nullptr;
};

struct ReconcilerOptions {
  std::string policy = "fragpack";     // Engine scoring policy inside the chosen domain.
  double max_staleness_seconds = 60;   // A full round at least this often.
  double status_interval_seconds = 5;  // GPUPool status written at most this often (a Ready change at once).
  double shield_seconds = 60;          // A gang PodDisruptionBudgets kept from eviction is not chosen again for this long.
  std::uint64_t seed = 1;
  // A gang leaving a node under notice is evicted this long before the node goes (its pods' grace).
  double spot_eviction_margin_seconds = 15;
  // Longest stretch without a utilization sample that still counts as covered (3 poll intervals).
  double idle_max_gap_seconds = 90;
  // gangplank's kube-scheduler runs Kubernetes' PodGroup cycle (GenericWorkload on): it holds a PodGroup's
  // pods while any is gated, so a basic{} group is admitted whole instead of pod by pod.
  bool native_gang_cycle = false;
  // Gangs of one round whose admission writes are in flight at once: each waits on the API server, so
  // one at a time caps admissions at one round trip each (the client's QPS still bounds them all).
  int admission_writers = 8;
};

struct RoundReport {
  bool ran = false;           // An engine round ran (not only bookkeeping).
  bool full = false;
  int admitted = 0;
  int evicted = 0;
  int conflicts = 0;
  double seconds = 0;         // Time in the engine round itself.
  double next_wakeup = 1e300; // When time alone could change the outcome (absolute, seconds).
  bool again = false;         // Something was written that the next round must see at once.
};

class Reconciler {
 public:
  Reconciler(GangTracker& tracker, GangSizeResolver& sizes, ClusterWriter& writer, GangConditions& conditions,
             OperatorMetrics* metrics, MemberFaults& member_faults, ReconcilerOptions options = {});

  RoundReport Reconcile(PoolModel& model, const ReconcileContext& context);
  // Autoscaled pools ask `capacity` for the nodes of the gangs that do not fit (null: nobody is asked).
  void SetCapacityRequests(CapacityRequests* capacity) { capacity_ = capacity; }

  // Status of the pool as of the last round (written through the ClusterWriter when it changed).
  void WritePoolStatus(PoolModel& model, const ReconcileContext& context, const ConditionWrite& ready, bool force);

 private:
  struct Pending;
  void Refresh(PoolModel& model, const ReconcileContext& context, Pending& pending);
  void RefreshGang(PoolModel& model, const ReconcileContext& context, const std::string& key, Pending& pending);
  // A namespace's ungoverned GPU pods, as one running entry of the namespace's queue.
  void RefreshUngoverned(PoolModel& model, const ReconcileContext& context, const std::string& key);
  bool Recover(PoolModel& model, const Gang& gang, int min_members);
  void ApplyEvictions(PoolModel& model, const ReconcileContext& context, const RoundResult& round, RoundReport& report);
  struct AdmissionWrite;
  void ApplyAdmissions(PoolModel& model, const ReconcileContext& context, const RoundResult& round, RoundReport& report);
  AdmissionWrite PrepareAdmission(const PoolModel& model, const ReconcileContext& context, const RoundResult& round,
                                  size_t i) const;
  void RecordAdmission(PoolModel& model, const ReconcileContext& context, const RoundResult& round, size_t i,
                       AdmissionWrite& write, RoundReport& report);
  void SayWhy(PoolModel& model, const RoundResult& round, const Pending& pending,
              const std::map<std::string, CapacityNote>& capacity_notes);
  void Figures(PoolModel& model, const ReconcileContext& context, const RoundResult& round);
  void Assume(PoolModel& model, const cache::PodInfo& pod);
  double NextWakeup(const PoolModel& model) const;

  GangTracker& tracker_;
  GangSizeResolver& sizes_;
  ClusterWriter& writer_;
  GangConditions& conditions_;
  OperatorMetrics* metrics_;
  ReconcilerOptions options_;
  engine::Rng rng_;
  // `changed`: the pool's capacity or queues changed since the last reconcile.
  // Once per model: the restart records and usage ledger from the GPUPool's status.
  void SeedFromStatus(PoolModel& model, const ReconcileContext& context);
  // Runtime prediction (runtime_predictions.h): a gang the book held as running that no longer runs and
  // was not evicted ended its run; the predictor learns it, and its backfill record (unless it
  // overstayed) goes.
  void LearnIfEnded(PoolModel& model, const std::string& key, bool still_running, double now);
  // An overstaying predicted backfill is asked to checkpoint first: true once it may be ended (the
  // deadline passed, the job said it is done, or the pool gives no grace).
  bool OverrunDue(PoolModel& model, const Gang& gang, const std::string& reason, double now);
  void RecoverFaults(PoolModel& model, const ReconcileContext& context, bool changed, RoundReport& report);
  void JudgeUtilization(PoolModel& model, const ReconcileContext& context, RoundReport& report);

  SpotReclaimer spot_;
  GangRestarter faults_;
  UsageAccounting usage_;
  IdleGangs idle_;
  CapacityRequests* capacity_ = nullptr;
};

}  // namespace gangplank::op
