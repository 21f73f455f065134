// Carries out the engine's spot reclaim decisions (engine/spot/spot_reclaim.h) for one pool, in each
// reconcile before the admission round:
//   - a gang with a member on a node under notice gets gangplank.io/checkpoint-requested (the deadline,
//     RFC 3339) on every member, and an event;
//   - on its acknowledgement (gangplank.io/checkpoint-done on any member) or at the deadline, the whole
//     gang is evicted through the Eviction API with a grace period that ends before the node goes; a
//     PodDisruptionBudget cannot save pods on a node that goes anyway, so what it refuses is deleted;
//   - the gang is requeued whole in its old place (its owner recreates the pods; the pool model keeps
//     its arrival), and the work it lost is recorded (event and metric);
//   - a request made for a notice that went away before the eviction (gangplank.io/checkpoint-cause
//     SpotNotice) is taken back, with an event.
// The deadline lives on the pods, so a new leader carries on where the last one stopped.
#pragma once

#include <functional>
#include <limits>

#include "engine/spot/spot_reclaim.h"
#include "operator/writer/cluster_writer.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/model/pool_model.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/spot/node_notices.h"
#include "operator/status/gang_conditions.h"

namespace gangplank::op {

struct SpotOutcome {
  int checkpoints_requested = 0;  // Gangs asked to checkpoint.
  int evicted = 0;                // Gangs evicted.
  double next_wakeup = std::numeric_limits<double>::infinity();  // Earliest checkpoint deadline waited for.
};

class SpotReclaimer {
 public:
  // `assume` makes a pod as written the truth in the caches before the informer reports it.
  SpotReclaimer(GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions, OperatorMetrics* metrics,
                std::function<void(PoolModel&, const cache::PodInfo&)> assume, double eviction_margin_seconds);

  SpotOutcome Run(PoolModel& model, const NoticeSnapshot& notices, double now);

 private:
  void RequestCheckpoint(PoolModel& model, const Gang& gang, const engine::SpotDecision& d, const std::string& node);
  bool Evict(PoolModel& model, const Gang& gang, const engine::SpotDecision& d, const std::string& node,
             const NoticedNode& notice, double now);
  void WithdrawCheckpoint(PoolModel& model, const Gang& gang);

  GangTracker& tracker_;
  ClusterWriter& writer_;
  GangConditions& conditions_;
  OperatorMetrics* metrics_;
  std::function<void(PoolModel&, const cache::PodInfo&)> assume_;
  double eviction_margin_seconds_;
};

// The pool's spot knobs as the engine takes them.
engine::SpotConfig SpotConfigFor(const cache::PoolConfig& pool, double eviction_margin_seconds);

}  // namespace gangplank::op
