// Carries out the engine's fault-recovery decisions (engine/recovery/gang_recovery.h) for one pool, in
// each reconcile after spot reclaim and before the admission round:
//   - a running gang with a member Failed or deleted, or a member on a node that lost its host, turned
//     unhealthy (a condition of the pool's list), was quarantined or lost GPUs below what it holds, is
//     restarted whole: every member evicted (deleted when a budget or a lost host stops the eviction),
//     the gang requeued in its old place, its record (restarts, cause, the nodes it left) kept in the
//     pool's status; the nodes it left take no new gangplank pods while their fault lasts;
//   - on a node that still runs its pods it is first asked to checkpoint (gangplank.io/checkpoint-requested,
//     as for spot reclaim) and restarted on the acknowledgement or at the deadline; the request is taken
//     back when the fault goes first;
//   - a gang whose controller mends its members (JobSet, LeaderWorkerSet, the training operators,
//     KubeRay: cache::ControllerMendsMembers) is left to it when a member fails or goes: not restarted,
//     not charged, its nodes and place kept for the pods the controller makes again (Event
//     LeftToController); only if it stays below its minimum past the grace is it restarted;
//   - past its restart limit, or under policy FailGang, it is failed: evicted, not requeued, and its pods
//     held with reason GangFailed until its owner is deleted; Ignore leaves it alone.
// The record lives in the GPUPool's status and the checkpoint deadline on the pods, so a new leader
// carries on where the last one stopped.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <string>

#include "engine/recovery/gang_recovery.h"
#include "operator/faults/member_faults.h"
#include "operator/faults/node_faults.h"
#include "operator/gangs/gang_tracker.h"
#include "operator/metrics/operator_metrics.h"
#include "operator/model/pool_model.h"
#include "operator/model/queue_tree.h"
#include "operator/status/gang_conditions.h"
#include "operator/writer/cluster_writer.h"

namespace gangplank::op {

// Running gangs are looked over at least this often even when nothing says a fault appeared.
inline constexpr double kFaultLookSeconds = 10;

struct RestartOutcome {
  int checkpoints_requested = 0;
  int restarted = 0;
  int failed = 0;
  double next_wakeup = std::numeric_limits<double>::infinity();
};

// What a gang's defining object says about its faults.
struct GangTerms {
  int min_members = 0;         // Members below it for a grace restart the gang.
  bool disrupt_whole = false;  // A native PodGroup's disruptionMode all: a lost member is the gang's fault,
                               // never replaced alone, whatever the pool's replaceMembers says.
};

class GangRestarter {
 public:
  GangRestarter(GangTracker& tracker, ClusterWriter& writer, GangConditions& conditions, OperatorMetrics* metrics,
                MemberFaults& member_faults, std::function<void(PoolModel&, const cache::PodInfo&)> assume);

  // Whether Run could find anything to do: a fault signal on a node of the pool, a member fault of a
  // running gang, a gang below its minimum, a decision or recovery due, the pool's nodes (one went, shrank
  // or its fault signals changed) or queues changed (`changed`), or kFaultLookSeconds since the last look.
  // Else Run is skipped, so a pod ending or a node's cordon does not cost a walk over every running gang.
  bool Due(PoolModel& model, const NodeFaultSnapshot& nodes, bool changed, double now) const;
  RestartOutcome Run(PoolModel& model, const NodeFaultSnapshot& nodes, const QueueTree& tree,
                     const std::function<GangTerms(const Gang&)>& terms, double now);

 private:
  void NoteRecovered(PoolModel& model, const engine::RunningGang& running, double now);
  engine::GangHealth HealthOf(PoolModel& model, const engine::RunningGang& running, const Gang& gang,
                              const QueueTree& tree, const GangTerms& terms, const NodeFaultSnapshot& snapshot, double now);
  void Carry(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now, RestartOutcome& outcome);
  void RequestCheckpoint(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d);
  void WithdrawCheckpoint(PoolModel& model, const Gang& gang);
  void Restart(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now);
  void Fail(PoolModel& model, const Gang& gang, const engine::RecoveryDecision& d, double now);
  bool EvictWhole(PoolModel& model, const Gang& gang, const std::string& why);
  void LeaveToController(PoolModel& model, const Gang& gang, const engine::MemberFault& fault, double now);

  GangTracker& tracker_;
  ClusterWriter& writer_;
  GangConditions& conditions_;
  OperatorMetrics* metrics_;
  MemberFaults& member_faults_;
  std::function<void(PoolModel&, const cache::PodInfo&)> assume_;
};

// The pool's fault recovery for a gang of `queue` as the engine takes it (the queue's overrides applied).
engine::RecoveryConfig RecoveryConfigFor(const cache::PoolConfig& pool, const QueueTree& tree, const std::string& queue);

}  // namespace gangplank::op
