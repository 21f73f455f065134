// Spot reclaim at gang level: what to do now about the gangs with a member on a node that is about to go.
// A gang is one job: losing one member stops them all, so the whole gang is asked to checkpoint, and
// the whole gang is evicted (then requeued whole by the caller), never a member alone.
//
// Policies (the simulator compares all three; the operator runs the first or the second):
//  - CheckpointThenEvict: every member is asked to checkpoint by a deadline, the earlier of
//    `checkpoint_grace_seconds` from now and `eviction_margin_seconds` before the node goes; the gang is
//    evicted as soon as it acknowledges, or at the deadline without an acknowledgement.
//  - EvictOnNotice: the gang is evicted at once (work since its last checkpoint is lost).
//  - Ignore: nothing is done; the node takes its pods with it and the rest of the gang is stranded.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/resources.h"

namespace gangplank::engine {

enum class SpotPolicy { kCheckpointThenEvict, kEvictOnNotice, kIgnore };

struct SpotConfig {
  SpotPolicy policy = SpotPolicy::kCheckpointThenEvict;
  double checkpoint_grace_seconds = 90;  // The longest a gang is given to checkpoint.
  // Evict this long before the node goes, so that pods terminate gracefully while it still runs.
  double eviction_margin_seconds = 15;
};

// A node under a termination notice (times in seconds, any epoch shared with `now`).
struct NodeNotice {
  NodeId node = 0;
  double noticed_at = 0;
  double terminate_at = 0;
};

// A running gang with at least one member on some node (the caller passes every running gang, or only
// those it knows are affected).
struct GangOnNodes {
  std::string name;
  std::vector<NodeId> nodes;                  // Where its members run.
  std::optional<double> checkpoint_deadline;  // Set once it was asked to checkpoint: the deadline given.
  bool checkpoint_done = false;               // A member acknowledged the checkpoint.
  std::optional<double> checkpoint_done_at;   // When, if the acknowledgement says.
  // A deadline from before the notice, or an acknowledgement from before it, belongs to an earlier notice
  // that went away (a cancelled disruption): the gang is asked again.
  bool terminating = false;                   // Already being evicted: nothing more to do.
  // Its checkpoint request was made for a notice (the caller's record of why it asked).
  bool checkpoint_asked_for_notice = false;
};

enum class SpotAction {
  kRequestCheckpoint,  // Ask every member to checkpoint by `deadline`.
  kEvict,              // Evict the whole gang now and requeue it whole.
  kWait,               // Asked already; wait for the acknowledgement or `deadline`.
};

struct SpotDecision {
  std::string gang;
  SpotAction action = SpotAction::kWait;
  double deadline = 0;        // kRequestCheckpoint, kWait: the checkpoint deadline.
  NodeId node = 0;            // The member's node that goes first: why the gang is affected.
  double terminate_at = 0;    // When that node goes.
  bool checkpointed = false;  // kEvict: the gang acknowledged its checkpoint before being evicted.
  std::string reason;         // kEvict: why now, for events ("checkpoint done", ...).
};

struct SpotPlan {
  std::vector<SpotDecision> decisions;  // One per affected gang that is not terminating, in input order.
  // The earliest deadline a kWait or kRequestCheckpoint decision waits for: the caller must decide again
  // then, even if nothing else happens. Infinity when none.
  double next_wakeup = std::numeric_limits<double>::infinity();
  // Gangs asked to checkpoint for a notice that no longer covers any of their nodes (the notice was
  // withdrawn, a cancelled disruption): the request is taken back, and the gang runs on. Whatever the
  // policy, so that a request never outlives its cause.
  std::vector<std::string> withdrawn;
};

// The deadline a gang asked now is given for a notice on one of its nodes (never before `now`).
double CheckpointDeadline(const NodeNotice& notice, double now, const SpotConfig& config);

SpotPlan PlanSpotReclaim(const std::vector<NodeNotice>& notices, const std::vector<GangOnNodes>& gangs, double now,
                         const SpotConfig& config);

}  // namespace gangplank::engine
