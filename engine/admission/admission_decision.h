// The outcome of one admission round. Indices refer to the AdmissionInput the round was given. The
// caller applies it in this order: evict `reclaims` (whole gangs), start `admitted` with their plans in
// list order (each plan was made on the model with the earlier ones applied), keep `reservations`
// (replacing the input's). Every entry carries a sentence for a Kubernetes event.
#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gang/gang_plan.h"

namespace gangplank::engine {

struct Admitted {
  int waiting = 0;  // Index into AdmissionInput::waiting.
  GangPlan plan;
  std::string reason;
  // Planned onto nodes reserved for another gang on the strength of its declared runtime (EASY
  // backfill): it must be gone by then, so the caller holds it to that runtime. With
  // `by_prediction`, on its predicted runtime (no declared one): the caller sets RunningGang::leave_by.
  bool on_reserved = false;
  bool by_prediction = false;
};

struct Reserved {
  int waiting = 0;
  std::vector<NodeId> nodes;
  bool for_reclaim = false;
  std::string reason;
  // Waiting-time reservations (ReservationChoice::kSoonest): the narrowest domain holding the nodes
  // ("rack=k3", "the pool") and when the gang is expected to start there; infinity when not judged.
  std::string domain;
  double expected_start = std::numeric_limits<double>::infinity();
};

enum class EvictionKind {
  kReclaim,       // Fair share: from a queue above its share for a gang of a queue below its share.
  kPriority,      // Priority preemption within one queue (AdmissionQueue::preempt_lower_priority).
  kStartTimeout,  // Admitted, but not all members started in time: released to be requeued whole.
  // Backfilled onto another gang's reservation on its predicted runtime, it ran past it and that gang
  // could otherwise start: ended whole (after a checkpoint request) and requeued in its place.
  kBackfillOverrun,
  // Moved out of a waiting gang's way (ConsolidationConfig): ended and requeued in its place, to start
  // again at once on free GPUs elsewhere.
  kConsolidation,
};

// Event reasons: Reclaim, PriorityPreemption, StartTimeout, BackfillOverrun, Consolidation.
std::string_view EvictionKindName(EvictionKind kind);

// Whether the eviction counts against ReclaimConfig's victim budgets: a gang released for its own
// timeout or overrun was not chosen as a victim, and moves have their own (ConsolidationConfig).
inline bool Budgeted(EvictionKind kind) {
  return kind == EvictionKind::kReclaim || kind == EvictionKind::kPriority;
}

struct Reclaimed {
  int running = 0;      // Index into AdmissionInput::running: evict this whole gang.
  int beneficiary = 0;  // Index into AdmissionInput::waiting: the gang it makes room for (-1: none).
  double lost_gpu_seconds = 0;
  std::string reason;
  EvictionKind kind = EvictionKind::kReclaim;
};

// A waiting gang that could not be placed, for which reclaim or priority preemption was tried and no
// eviction made, with why (budget spent, nothing reclaimable, eviction would not help...).
struct ReclaimRefused {
  int waiting = 0;
  std::string reason;
};

// Why a waiting gang was not admitted, one code per kind of obstacle.
enum class BlockCode {
  kQueueAtLimit,        // Its queue, or a queue above it, would go above its limit.
  kInsufficientGpus,    // It asks for more GPUs than the pool's schedulable nodes have free.
  kTopology,            // The GPUs are free, but not in one domain of the level it requires (or they do not fit its pods).
  kNoEligibleNodes,     // No schedulable node may take it: GPU model, node selector, taints or cordon.
  kReserved,            // It holds reserved nodes and waits for them to drain.
  kAwaitingVictims,     // Gangs were evicted for it and have not left yet.
  kBehindStarvingGang,  // An older gang of its queue waited past no_backfill_after_seconds and does not fit.
  kNotReplanned,        // An incremental round did not plan it (AdmissionInput::plan_only).
  kInvalid,             // Malformed: unknown or inner queue, bad request, repeated name.
  kTimedOut,            // It waited longer than its timeout; its reservation is released.
};

// CamelCase, for the reason of a Kubernetes condition: QueueAtLimit, InsufficientGPUs,
// TopologyUnsatisfiable, NoEligibleNodes, Reserved, AwaitingVictims, BlockedBehindGang, NotReplanned,
// InvalidGang, TimedOut.
std::string_view BlockCodeName(BlockCode code);

struct Blocked {
  int waiting = 0;  // Index into AdmissionInput::waiting.
  BlockCode code = BlockCode::kInvalid;
  // A sentence with the numbers that matter, e.g. "needs 64 GPUs; the pool has 40 free"; empty for
  // kNotReplanned (the reason of the last full round still stands).
  std::string message;
};

struct AdmissionDecision {
  std::vector<Admitted> admitted;
  std::vector<Reserved> reservations;
  std::vector<Reclaimed> reclaims;  // Reclaim, priority preemption and start timeouts.
  std::vector<ReclaimRefused> refused;
  std::vector<double> fair_shares;  // Per input queue, GPUs.
  std::vector<double> held;         // Per input queue, GPUs held by running gangs before the round.
  std::vector<std::string> errors;  // Waiting gangs skipped as malformed (unknown queue, bad request).
  // Exactly one entry per waiting gang not admitted (reserved, invalid and not replanned ones too), in
  // waiting order.
  std::vector<Blocked> blocked;
  // The earliest time after `now` at which a time-based rule could change the outcome (next_wakeup.h);
  // the caller runs a round then even if nothing else happened. An incremental round counts only what
  // it looked at (see AdmissionInput::plan_only): keep the earliest of it and the last full round's.
  double next_wakeup = std::numeric_limits<double>::infinity();
};

}  // namespace gangplank::engine
