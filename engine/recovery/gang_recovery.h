// Fault recovery at gang level: what to do now about the running gangs a fault hit. A distributed job is
// only as alive as its weakest member, so a gang is restarted, failed or left alone whole, never a
// member alone (what Kubernetes does by itself: one pod replaced elsewhere while the rest hang in a
// collective). The operator reads the signals (cache/objects/node_fault.h, member_fault.h) and carries
// the decisions out (operator/faults/gang_restarter.h); the simulator replays them (simulator/faults/).
//
// Rules, per gang, each under the gang's own config (recovery_config.h):
//  1. Whole gangs only. A terminating or already failed gang is skipped; under kIgnore nothing is decided.
//  2. Node faults count for the gangs with a member on that node. A lost host (NotReady, unreachable)
//     counts once it lasted `node_grace_seconds` (a kubelet restart is no lost host); before, the gang
//     waits (kWait until the grace ends). A condition, a quarantine and a GPU shortfall (allocatable
//     below allocated on that node; none otherwise) count at once.
//  3. A member Failed or deleted counts at once. A gang below its minimum members (members <
//     min_members) counts once it stayed so `below_minimum_grace_seconds`, and waits before. With
//     `replace_members` (torchrun elastic) a member's loss is no fault itself: the gang waits for the
//     replacement to join, and only the below-minimum grace restarts it. So for a gang whose controller
//     mends its members (`controller_mends_members`: JobSet, LeaderWorkerSet, the training operators,
//     KubeRay): its controller restarts or replaces them, and a restart of gangplank's at once would be a
//     second one.
//  4. kFailGang: the gang is failed (kFail) with the fault's message.
//  5. kRestartGang. A restart is `charged` to the gang when one of its own failures is among the
//     causes: a member Failed or deleted on a node with no fault of its own, or too few members. A node's
//     fault (and a member failing on a faulty node, even one whose fault does not count: a GPU shortfall
//     its pods now fit in, a lost host within its grace) is the cluster's: never charged, so hardware
//     faults never exhaust a gang's limit nor slow its restart (as Kubernetes' podFailurePolicy ignores
//     pod failures a disruption caused). The caller counts only charged restarts in `restarts` and
//     `last_restart_at`. Checked in this order:
//     a. Charged and `restarts` >= `restart_limit`: failed, "restart limit N reached; <fault>".
//     b. Charged and before `last_restart_at` + RestartBackoff(restarts) (none, then backoff, doubled
//        each restart, capped): kWait until then.
//     c. Any fault that leaves nobody to checkpoint (a lost host, a lost member, too few members), or no
//        checkpoint grace: kRestart at once.
//     d. Every fault on a live host: kRequestCheckpoint by now + `checkpoint_grace_seconds` unless asked
//        since the fault began; once asked, kRestart on an acknowledgement made since the fault began
//        (`checkpointed`) or at the deadline, kWait before. A request or acknowledgement older than
//        the fault belongs to an earlier event (a withdrawn spot notice): the gang is asked again.
//     A restart names the nodes to blame (`avoid_nodes`) to plan the gang again without them.
//  6. One decision per gang however many faults: named after its first lost host, else its earliest
//     fault (the first of equals in the gang's node order, then its members, then its size). Decisions
//     come in input order; `next_wakeup` is when time alone would change one of them.
//  7. A gang fault recovery asked to checkpoint that has no fault left, counted or pending (the node
//     recovered, the shortfall closed, the taint was lifted), is `withdrawn`: the request is taken back,
//     so a job never keeps checkpointing, or stops, for a fault that is gone.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "engine/recovery/fault_cause.h"
#include "engine/recovery/gang_health.h"
#include "engine/recovery/node_fault.h"
#include "engine/recovery/recovery_config.h"

namespace gangplank::engine {

enum class RecoveryAction {
  kRequestCheckpoint,  // Ask every member to checkpoint by `deadline`.
  kRestart,            // Evict every member now and requeue the gang whole, away from `avoid_nodes`.
  kFail,               // Evict it and leave it failed: `message` says why.
  kWait,               // Nothing yet: a grace, the backoff or a checkpoint deadline ends at `wait_until`.
};

struct RecoveryDecision {
  std::string gang;
  RecoveryAction action = RecoveryAction::kWait;
  FaultCause cause = FaultCause::kMemberFailed;
  std::string node;     // The node at fault (or the failed member's node); empty for kBelowMinimum.
  std::string message;  // "node gpu-17 NotReady for 45 s", "restart limit 3 reached; member w-3 Failed".
  double fault_since = 0;  // When the earliest of its faults started: recovery time is measured from it.
  double deadline = 0;     // The checkpoint deadline, once one is asked or given.
  double wait_until = 0;   // kWait, kRequestCheckpoint: when time alone changes the decision.
  // The nodes to blame: those of node causes, and those its failed members ran on when the node has a fault.
  std::vector<std::string> avoid_nodes;
  bool checkpointed = false;  // kRestart: the gang acknowledged a checkpoint since the fault.
  bool charged = false;       // One of the gang's own failures is a cause: count a kRestart in `restarts`.
};

struct RecoveryPlan {
  std::vector<RecoveryDecision> decisions;  // One per gang with a fault that counts or will, input order.
  // The earliest time alone changes a decision (a grace, the backoff or a checkpoint deadline ends, a
  // pending fault starts to count): decide again then even if nothing else happens. Infinity when never.
  double next_wakeup = std::numeric_limits<double>::infinity();
  std::vector<std::string> withdrawn;  // Gangs whose fault checkpoint request is to be taken back (rule 7).
};

RecoveryPlan PlanGangRecovery(const std::vector<NodeFault>& nodes, const std::vector<GangHealth>& gangs, double now);

}  // namespace gangplank::engine
