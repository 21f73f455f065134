#include "engine/recovery/gang_recovery.h"

#include <algorithm>
#include <cmath>

#include "engine/recovery/gang_faults.h"

namespace gangplank::engine {
namespace {

// The fault a decision is named after (rule 6); `faults` is not empty.
const GangFault& Primary(const std::vector<GangFault>& faults) {
  const auto lost = std::find_if(faults.begin(), faults.end(), [](const GangFault& f) { return IsLostHost(f.cause); });
  if (lost != faults.end()) return *lost;
  return *std::min_element(faults.begin(), faults.end(),
                           [](const GangFault& a, const GangFault& b) { return a.since < b.since; });
}

RecoveryDecision Named(const GangHealth& gang, const std::vector<GangFault>& faults) {
  const GangFault& primary = Primary(faults);
  RecoveryDecision d;
  d.gang = gang.name;
  d.cause = primary.cause;
  d.node = primary.node;
  d.message = primary.message;
  d.fault_since = primary.since;
  for (const GangFault& f : faults) {
    d.fault_since = std::min(d.fault_since, f.since);
    d.charged = d.charged || f.charged;
    if (f.node_to_blame && std::find(d.avoid_nodes.begin(), d.avoid_nodes.end(), f.node) == d.avoid_nodes.end()) {
      d.avoid_nodes.push_back(f.node);
    }
  }
  return d;
}

RecoveryDecision With(RecoveryDecision d, RecoveryAction action, double wait_until = 0) {
  d.action = action;
  d.wait_until = wait_until;
  return d;
}

// Rule 5d: every fault is on a live host.
RecoveryDecision CheckpointFirst(const GangHealth& gang, RecoveryDecision d, double now) {
  const bool asked = gang.checkpoint_deadline && *gang.checkpoint_deadline >= d.fault_since;
  if (!asked) {
    d.deadline = now + gang.config.checkpoint_grace_seconds;
    return With(d, RecoveryAction::kRequestCheckpoint, d.deadline);
  }
  d.deadline = *gang.checkpoint_deadline;
  // Annotations carry whole seconds (RFC 3339): an acknowledgement in the fault's own second counts.
  d.checkpointed = gang.checkpoint_done && (!gang.checkpoint_done_at || *gang.checkpoint_done_at >= std::floor(d.fault_since));
  if (d.checkpointed || now >= d.deadline) return With(d, RecoveryAction::kRestart);
  return With(d, RecoveryAction::kWait, d.deadline);
}

// Rules 4 and 5 for a gang with faults that count.
RecoveryDecision Decide(const GangHealth& gang, const std::vector<GangFault>& counted, double now) {
  RecoveryDecision d = Named(gang, counted);
  const RecoveryConfig& config = gang.config;
  if (config.policy == RecoveryPolicy::kFailGang) return With(d, RecoveryAction::kFail);
  // Rules 5a and 5b apply to the gang's own failures only: a node's fault restarts it whatever its past.
  if (d.charged && gang.restarts >= config.restart_limit) {
    d.message = "restart limit " + std::to_string(config.restart_limit) + " reached; " + d.message;
    return With(d, RecoveryAction::kFail);
  }
  if (d.charged && gang.last_restart_at) {
    const double ready_at = *gang.last_restart_at + RestartBackoff(gang.restarts, config);
    if (now < ready_at) return With(d, RecoveryAction::kWait, ready_at);
  }
  const bool checkpointable =
      std::all_of(counted.begin(), counted.end(), [](const GangFault& f) { return f.checkpointable; });
  if (!checkpointable || config.checkpoint_grace_seconds <= 0) return With(d, RecoveryAction::kRestart);
  return CheckpointFirst(gang, d, now);
}

// A gang with faults that do not count yet: it waits for the first to count.
RecoveryDecision WaitForFirst(const GangHealth& gang, const std::vector<GangFault>& pending) {
  const GangFault& first = *std::min_element(
      pending.begin(), pending.end(), [](const GangFault& a, const GangFault& b) { return a.counts_at < b.counts_at; });
  RecoveryDecision d = Named(gang, {first});
  return With(d, RecoveryAction::kWait, first.counts_at);
}

double EarliestCount(const std::vector<GangFault>& pending) {
  double at = std::numeric_limits<double>::infinity();
  for (const GangFault& f : pending) at = std::min(at, f.counts_at);
  return at;
}

bool Skipped(const GangHealth& gang) {
  return gang.terminating || gang.failed || gang.config.policy == RecoveryPolicy::kIgnore;
}

}  // namespace

RecoveryPlan PlanGangRecovery(const std::vector<NodeFault>& nodes, const std::vector<GangHealth>& gangs, double now) {
  const NodeFaultIndex index = IndexByNode(nodes);
  RecoveryPlan plan;
  for (const GangHealth& gang : gangs) {
    if (Skipped(gang)) continue;
    const GangFaults faults = FaultsOf(gang, index, now);
    if (faults.counted.empty() && faults.pending.empty()) {
      if (gang.checkpoint_asked_for_fault && gang.checkpoint_deadline) plan.withdrawn.push_back(gang.name);
      continue;
    }
    RecoveryDecision d =
        faults.counted.empty() ? WaitForFirst(gang, faults.pending) : Decide(gang, faults.counted, now);
    const bool waiting = d.action == RecoveryAction::kWait || d.action == RecoveryAction::kRequestCheckpoint;
    // A pending fault may change a waiting decision before its own wait ends (a host lost mid-checkpoint).
    if (waiting) plan.next_wakeup = std::min({plan.next_wakeup, d.wait_until, EarliestCount(faults.pending)});
    plan.decisions.push_back(std::move(d));
  }
  return plan;
}

}  // namespace gangplank::engine
