// When an incremental admission round (AdmissionInput::plan_only) decides what a full round would.
//
// The operator reconciles on every event (a gang arrives, a pod ends, a node changes). A full round
// plans every waiting gang; an incremental one plans only the gangs the event concerns (a new or
// changed gang) plus those holding reservations, and reports the others NotReplanned. That is enough
// when, since the last full round, nothing happened that could let a gang outside plan_only start:
//  - capacity only shrank: the last full round found no placement for each of them, and the decisions
//    applied since then only took capacity (admissions, reservations), so none appeared;
//  - their order is unchanged where it matters: shares did not move in their favour (queues,
//    weights, guarantees and limits are the same, and no queue's demand fell), so no limit loosened
//    and no queue newly fell below its share (which would make its gangs reclaim beneficiaries);
//  - no time-based rule fired (the last decision's next_wakeup has not passed): no gang waited long
//    enough to reclaim, reserve or stop backfill, no victim became old enough, no eviction left the
//    budget window, no gang timed out.
// A gang that arrives or changes raises its own queue's demand (and share), which only lowers others'
// shares: that can make the new gang's queue a reclaim beneficiary, not another's, and the new gang is
// in plan_only. Its queue's older gangs get the same chance at the next full round, within
// max_staleness_seconds.
//
// What invalidates it, so that the next round must be full: capacity freed (a pod or gang ended, a
// node was added, uncordoned, grew, or lost a taint or label that kept gangs off it; a reservation was
// dropped), queues changed (tree, weights, guarantees, limits, the config), running gangs changed
// other than by applying the decisions (a gang ended, checkpointed so it loses less work as a victim,
// or was removed), a waiting gang left without starting (its queue's demand fell, so others' shares
// rose), the wakeup time passed, or the last full round is older than max_staleness_seconds (a bound on
// anything the caller failed to signal). Starting the round's own admissions and evictions is not a
// change: admissions only take capacity, and evictions are followed by pods ending (capacity_freed).
#pragma once

#include <limits>

namespace gangplank::engine {

struct ScopeSignals {            // What changed since the last full round, as the caller saw it.
  bool capacity_freed = false;   // A pod released capacity, a node was added/uncordoned/grew, a reservation dropped.
  bool queues_changed = false;   // Queue tree, weights, guarantees, limits, config.
  bool running_changed = false;  // A running gang started or ended other than by a decision, or checkpointed.
  bool demand_fell = false;      // A waiting gang left without starting (other queues' shares rose).
  double now = 0;
  double last_full_round = -std::numeric_limits<double>::infinity();
  double next_wakeup = std::numeric_limits<double>::infinity();  // The earliest of the last decisions'.
  double max_staleness_seconds = 60;                              // A full round at least this often.
};

bool NeedsFullRound(const ScopeSignals& signals);

}  // namespace gangplank::engine
