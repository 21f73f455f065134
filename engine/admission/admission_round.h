// One admission round of a GPU pool: the single place where the operator and the simulator decide
// which waiting gangs start, which hold reservations and which running gangs are reclaimed.
//
// 1. Fair shares: weighted max-min (WaterFill) of the pool's GPUs over the queues, demand = GPUs held
//    by running gangs + GPUs asked for by waiting gangs. Queues may form a tree (AdmissionQueue::parent):
//    each queue divides its share among its children (ComputeFairShares); gangs wait in leaves only.
// 2. Reserved gangs first (admission order), each seeing its own nodes but not the other reservations'.
// 3. Every other waiting gang in admission order: the queue furthest below its fair share (re-evaluated
//    after each admission), then higher priority, then gangs requeued after an eviction, then earlier
//    arrival. Each is planned all or nothing with PlanGang; one that does not fit is passed over so
//    smaller ones may start (backfill). A gang that needs at least what a failed gang with the same
//    constraints needed is not planned again in the round. No queue on the gang's path (its leaf and
//    every queue above it) goes above its limit.
// 4. Waiting-time reservations (ReservationConfig, round_reservations.cc): multi-pod gangs that waited
//    long enough, of queues ReservationConfig::share allows, reserve the domain expected to hold them
//    soonest (ChooseSoonestReservation, from running gangs' declared or elapsed-based ends; re-judged
//    each round) or, by choice, the nodes with the most free GPUs now (ChooseReservation), within a node
//    budget. In step 3 no gang lands on reserved nodes unless its runtime (declared, else predicted,
//    WaitingGang::predicted_runtime) ends before the reserved gang is expected to start there (EASY
//    backfill). Before step 3 a full round ends, whole, the gangs that came on a prediction and are
//    past RunningGang::leave_by on a reservation that could otherwise start (kBackfillOverrun, outside
//    the budget).
// 5. Reclaim (ReclaimConfig, off by default): for unplaced gangs of queues below their fair share, in
//    admission order, ChooseVictims picks whole running gangs of queues above their fair share whose
//    eviction verifiably lets the gang be planned; the gang reserves the planned nodes and starts in a
//    later round, once the victims are gone. Every queue on the victim's side below where it meets the
//    beneficiary's must hold more than its fair share, and none is taken below its guarantee nor below
//    the beneficiary side's fraction of its fair share (see Reclaimable in round_reclaim.cc); never a
//    gang younger than the minimum runtime, at most the per-round and per-window budget.
// 6. Consolidation (ConsolidationConfig, off by default, round_consolidation.cc): for unplaced gangs
//    that waited reclaim's minimum wait and whose queue's fair share has room for them, when the pool's
//    free GPUs would hold them but no set of nodes does, ChooseVictims picks running one-pod gangs of any
//    queue that the caller marked movable (RunningGang::move_as), trimmed to those needed, and only if
//    each fits again elsewhere as it asks; they are evicted (kConsolidation, requeued in their place)
//    and the gang reserves the nodes as after reclaim. Reclaim's minimum runtime applies, a lost-work
//    cap and a per-round budget of its own.
// 7. Priority preemption (AdmissionQueue::preempt_lower_priority, with or without reclaim): for
//    unplaced gangs of such queues in admission order, ChooseVictims picks whole running gangs of the same
//    leaf queue with a strictly lower priority whose eviction verifiably lets the gang start; the gang
//    reserves the nodes as after reclaim. Reclaim's victim rules apply (minimum runtime, per queue when
//    AdmissionQueue::min_runtime_seconds says so, for reclaim too; lost-work cap; not terminating), and
//    both steps draw on one eviction budget.
// 8. Timeouts: a waiting gang past WaitingGang::timeout loses its reservation and gets no new one (no
//    drain, no evictions for it) but may still start; a running gang not started start_timeout_seconds
//    after its admission is released whole (EvictionKind::kStartTimeout, outside the budget).
// 9. Blocked: every waiting gang not admitted gets one reason (AdmissionDecision::blocked), judged on the
//    model as the decision leaves it: evicted gangs still leaving its reserved nodes, a queue limit on
//    its path, its reservation being drained, an older starving gang of its queue, then what the cluster
//    lacks (UnfitExplainer: eligible nodes, free GPUs, one domain of its required level).
// 10. next_wakeup: when time alone could change the outcome (next_wakeup.h).
//
// Incremental rounds (AdmissionInput::plan_only, round_scope.h) plan only the listed gangs and those
// holding reservations; the rest count for demand and are reported NotReplanned. With
// AdmissionInput::held the round does not sum the running gangs, so such a round costs O(planned gangs
// x plan + queues + reservations) plus a constant per waiting gang; running gangs are scanned only to
// find victims for a listed gang (and, while a reclaim reservation waits for its victims, for the
// terminating ones). Start timeouts are checked in full rounds only.
//
// `cluster` must hold exactly the running gangs' allocations. It is scratch during the round and is
// restored before returning (also on exceptions). Deterministic for a given rng state. Malformed
// waiting gangs (unknown or inner queue, bad request) are skipped and named in
// AdmissionDecision::errors; malformed queues (empty or repeated names, negative weight, unknown
// parent, a cycle of parents), plan_only indices out of range and a held of the wrong size or with
// negative values throw std::invalid_argument.
#pragma once

#include "engine/admission/admission_decision.h"
#include "engine/admission/admission_input.h"
#include "engine/cluster.h"
#include "engine/random.h"
#include "engine/scoring_policy.h"

namespace gangplank::engine {

AdmissionDecision DecideAdmission(Cluster& cluster, const AdmissionInput& input, const AdmissionConfig& config,
                                  ScoringPolicy& policy, Rng& rng);

}  // namespace gangplank::engine
